"""Interface language: ``tr("English text")`` returns the text in the chosen UI language.

English strings are the keys, so untranslated text simply stays English. The language is
chosen once at start-up (``set_language(settings.ui.ui_language)``); widgets read ``tr`` when
they are built, so a change applies after a restart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.api import Message
from .i18n_library import LIBRARY_ZH
from .i18n_screens import SCREENS_ZH
from .i18n_workflows import WORKFLOWS_ZH

if TYPE_CHECKING:  # for the annotations only: Qt is imported where it is used, as below
    from PySide6.QtCore import QTranslator

LANGUAGES: dict[str, str] = {"en": "English", "zh": "中文"}

_ZH: dict[str, str] = {
    # the structure of papers: references, kinds of passage
    "Kind": "类型",
    "in your library": "在文献库中",
    "Select a paper in the library to see its references.": "在文献库中选择一篇论文以查看其参考文献。",
    "No reference list was found in “{title}”.": "未在《{title}》中找到参考文献列表。",
    "References of “{title}”: {n}, {k} in your library.": "《{title}》的参考文献：{n} 条，其中 {k} 条在文献库中。",
    "Papers in My Library That Cite This": "文献库中引用本文的论文",
    "{n} document(s) in your library cite “{title}”.": "文献库中有 {n} 篇文献引用了《{title}》。",
    "No document in your library cites “{title}”.": "文献库中没有文献引用《{title}》。",
    "body": "正文",
    "abstract": "摘要",
    "caption": "图表标题",
    "table": "表格",
    "equation": "公式",
    "code": "代码",
    "footnote": "脚注",
    "acknowledgements": "致谢",
    "references": "参考文献",
    "appendix": "附录",
    "boilerplate": "版权与页面信息",
    "title": "标题与作者",
    "figure": "图片残留文字",
    # menus and main window
    "&File": "文件(&F)",
    "&Edit": "编辑(&E)",
    "&View": "视图(&V)",
    "&Library": "文献库(&L)",
    "&Help": "帮助(&H)",
    "&Import Files…": "导入文件(&I)…",
    "Import &Folder…": "导入文件夹(&F)…",
    "Export &Trace…": "导出追踪记录(&T)…",
    "&Quit": "退出(&Q)",
    "&Copy Answer with References": "复制答案及参考文献(&C)",
    "&Find in Library": "在文献库中查找(&F)",
    "&Settings…": "设置(&S)…",
    "Focus &Question Box": "聚焦提问框(&Q)",
    "&Refresh": "刷新(&R)",
    "&Rebuild Search Index": "重建搜索索引(&R)",
    "Remove &Selected Documents": "移除所选文献(&S)",
    "Add &Sample Papers": "添加示例论文(&S)",
    "&About PaperPilot": "关于 PaperPilot(&A)",
    "&Check Library…": "检查文献库(&C)…",
    "Check Library": "检查文献库",
    "Repair": "修复",
    "Library": "文献库",
    "Chat": "对话",
    "Inspector": "检查器",
    "Cancel": "取消",
    "Offline (no language model)": "离线（无语言模型）",
    "Researching…": "正在研究…",
    # chat pane
    "Ask a question about your papers…": "就你的论文提一个问题…",
    "Send": "发送",
    "Stop": "停止",
    "Stopping…": "正在停止…",
    "Copy answer": "复制答案",
    "Auto": "自动",
    "Quick": "快速",
    "Deep loop": "深度循环",
    "Mode": "模式",
    "You": "你",
    "PaperPilot": "PaperPilot",
    "Answered": "已回答",
    "Insufficient evidence": "证据不足",
    "Truncated at the round limit": "达到轮次上限，答案不完整",
    "Cancelled": "已取消",
    "Failed": "失败",
    "Confidence": "置信度",
    "Still missing": "仍然缺少",
    "Sources": "来源",
    "Read before you stopped ({n})": "停止前已读的段落（{n}）",
    "Read before the failure ({n})": "失败前已读的段落（{n}）",
    "Starting…": "正在开始…",
    "Round {n}": "第 {n} 轮",
    "Round {n} · thinking…": "第 {n} 轮 · 思考中…",
    "Round {n} · reading {k} passage(s)…": "第 {n} 轮 · 阅读 {k} 个段落…",
    "Round {n} · listing documents…": "第 {n} 轮 · 列出文献…",
    "Round {n} · writing the answer…": "第 {n} 轮 · 撰写答案…",
    "Round {n} · read {k} passage(s)": "第 {n} 轮 · 已读 {k} 个段落",
    "Checking citations…": "正在核对引用…",
    "Ask about the papers in your library. Answers cite the passages they rely on; click a number to see it.":
        "就文献库中的论文提问。答案会引用所依据的段落；点击编号即可查看。",
    "Enter sends · Shift+Enter new line": "Enter 发送 · Shift+Enter 换行",
    "Copied the answer and its references.": "已复制答案及参考文献。",
    "There is no answer to copy yet.": "还没有可复制的答案。",
    "{n} round(s)": "{n} 轮",
    "{s:.1f} s": "{s:.1f} 秒",
    # inspector
    "Evidence": "证据",
    "Trace": "追踪",
    "Result": "结果",
    "Open at source": "在原文中打开",
    "Export…": "导出…",
    "Export trace": "导出追踪记录",
    "verified": "已核实",
    "not verified": "未核实",
    "Verified: the cited passage was read and any quoted words occur in it.":
        "已核实：引用的段落已被阅读，且引号中的文字确实出现在其中。",
    "Not verified: read during the run but not checked as support for an answer.":
        "未核实：运行中读过，但未作为答案依据进行核对。",
    "Evidence appears here when an answer is ready.": "答案完成后，证据会显示在这里。",
    "Step": "步骤",
    "Detail": "详情",
    "Start": "开始",
    "Thought": "思路",
    "Hits": "命中",
    "Read": "阅读",
    "Warning": "警告",
    "Info": "信息",
    "Timing": "耗时",
    "Tokens": "词元",
    "Answer drafted": "答案草稿",
    "Finished": "完成",
    "Status": "状态",
    "Missing information": "缺失的信息",
    "Passages read": "已读段落",
    "Tokens in / out": "输入 / 输出词元",
    "Time": "时间",
    "Rounds": "轮次",
    "Nothing to export yet: ask a question first.": "还没有可导出的内容：请先提问。",
    "Could not write the trace": "无法写入追踪记录",
    "Section": "章节",
    "Page {n}": "第 {n} 页",
    # settings dialog
    "Settings": "设置",
    "Language model": "语言模型",
    "Work offline (no language model)": "离线工作（不使用语言模型）",
    "Preset": "预设",
    "Server URL": "服务器地址",
    "Model": "模型",
    "API key": "API 密钥",
    "Key from environment variable": "从环境变量读取密钥",
    "Forget saved key": "删除已保存的密钥",
    "Test connection": "测试连接",
    "Testing…": "正在测试…",
    "Cancel test": "取消测试",
    "Cancelling…": "正在取消…",
    "Model not reachable": "无法连接模型",
    "The model could not be reached with these settings:": "按这些设置无法连接到模型：",
    "Keep anyway": "仍然保存",
    "Checking that {model} can be reached before saving…": "保存前正在检查能否连接 {model}…",
    "Custom": "自定义",
    "Answers": "回答",
    "Maximum rounds": "最大轮次",
    "Temperature": "温度",
    "Citation style": "引用格式",
    "Import": "导入",
    "Chunk size (characters)": "分块大小（字符）",
    "Smallest chunk (characters)": "最小分块（字符）",
    "Stored in: {where}": "保存在：{where}",
    "Stored in a file only you can read: {where}": "保存在仅你可读的文件中：{where}",
    "A key you enter is stored in: {where}": "输入的密钥将保存在：{where}",
    "A key you enter is stored in a file only you can read: {where}": "输入的密钥将保存在仅你可读的文件中：{where}",
    "Applies to papers imported from now on.": "仅对之后导入的论文生效。",
    "Interface": "界面",
    "Interface language": "界面语言",
    "Takes effect after a restart.": "重启后生效。",
    "A key is saved. Type a new one to replace it.": "已保存密钥。输入新密钥即可替换。",
    "No key saved (local servers usually need none).": "未保存密钥（本地服务器通常不需要）。",
    "Saved — type to replace": "已保存 — 输入以替换",
    "No key saved": "未保存密钥",
    "No passage in your library supports an answer to this question.": "文献库中没有段落能支持这个问题的答案。",
    "Auto picks a quick search for simple questions and the research loop for harder ones.":
        "自动：简单问题快速检索，复杂问题进入多轮研究循环。",
    "Stop the run (Esc)": "停止运行（Esc）",
    "Choose a model name first, or test the connection to list the server's models.":
        "请先选择模型名称，或测试连接以列出服务器上的模型。",
    "Enter a model name, or turn on offline mode.": "请输入模型名称，或开启离线模式。",
    # library pane, viewer and dialogs
    "1 document": "1 篇文献",
    "{n} documents": "{n} 篇文献",
    "{shown} of {total}": "{total} 篇中的 {shown} 篇",
    "Ask: {question}": "试问：{question}",
    "Close": "关闭",
    "Copy Citation": "复制引用",
    "Copy Citations": "复制引用",
    "Document": "文献",
    "Edit Metadata": "编辑元数据",
    "Edit Metadata…": "编辑元数据…",
    "English text": "英文文本",
    "Failed: {reason}": "失败：{reason}",
    "File: {name}": "文件：{name}",
    "Filter by title, author, year": "按标题、作者、年份筛选",
    "Find in document": "在文献中查找",
    "Import failed": "导入失败",
    "Import failed: {reason}": "导入失败：{reason}",
    "Import files…": "导入文件…",
    "Import papers": "导入论文",
    "Next ▶": "下一处 ▶",
    "◀ Previous": "◀ 上一处",
    "No matches": "无匹配",
    "No matches yet": "暂无匹配",
    "{n} matches": "{n} 处匹配",
    "{i} of {n}": "第 {i} 处，共 {n} 处",
    "One author per line": "每行一位作者",
    "Open": "打开",
    "Open File": "打开文件",
    "Open document": "打开文献",
    "Open the library's copy of this file in the default application": "用默认程序打开文献库中的文件副本",
    "Page {page} of {pages}": "第 {page} 页，共 {pages} 页",
    "Passage highlighted": "已高亮段落",
    "Passage not found": "未找到段落",
    "Ready": "就绪",
    "Remove": "移除",
    "Remove from library": "从文献库移除",
    "Remove {n} Documents": "移除 {n} 篇文献",
    "Retry Import": "重新导入",
    "Show in Folder": "在文件夹中显示",
    "Source: {path}": "来源：{path}",
    "The library cannot be opened.": "无法打开文献库。",
    "This document has no text in the library.": "文献库中没有这篇文献的文本。",
    "This document is no longer in the library.": "这篇文献已不在文献库中。",
    "Try with sample papers": "用示例论文试试",
    "Zoom in": "放大",
    "Zoom out": "缩小",
    "these {n} documents": "这 {n} 篇文献",
    "unknown reason": "原因未知",
    "{name} could not be imported:\n\n{reason}": "{name} 无法导入：\n\n{reason}",
    "{name} et al.": "{name} 等",
    "{n} failed": "{n} 个失败",
    # citations: metadata editor, copying references, export
    "&Type:": "类型(&T)：",
    "T&itle:": "题名(&I)：",
    "&DOI:": "&DOI：",
    "&arXiv ID:": "&arXiv 编号：",
    "Journal article": "期刊论文",
    "Conference paper": "会议论文",
    "Book": "图书",
    "Book chapter": "图书章节",
    "Thesis": "学位论文",
    "Report": "报告",
    "Web page": "网页",
    "Preprint": "预印本",
    "Patent": "专利",
    "Standard": "标准",
    "Dataset": "数据集",
    "Newspaper article": "报纸文章",
    "Magazine article": "杂志文章",
    "Manuscript": "手稿",
    "Software": "软件",
    "Legislation": "法规",
    "Encyclopedia entry": "百科全书条目",
    "Dictionary entry": "词典条目",
    "Journal": "期刊",
    "Proceedings": "会议录",
    "Website": "网站",
    "Newspaper": "报纸",
    "Magazine": "杂志",
    "Encyclopedia": "百科全书",
    "Dictionary": "词典",
    "Repository": "预印本平台",
    "Container title": "所属出版物",
    "University": "学位授予单位",
    "Institution": "机构",
    "Publisher": "出版者",
    "Title": "题名",
    "Type": "类型",
    "Series": "丛书",
    "Volume": "卷",
    "Issue": "期",
    "Pages": "页码",
    "Number": "编号",
    "Edition": "版次",
    "Place": "出版地",
    "Event": "会议名称",
    "Genre": "类别",
    "DOI": "DOI",
    "arXiv ID": "arXiv 编号",
    "URL": "网址",
    "ISBN": "ISBN",
    "ISSN": "ISSN",
    "Note": "附注",
    "Authors": "作者",
    "Editors": "编者",
    "Authors ({n})": "作者（{n}）",
    "Editors ({n})": "编者（{n}）",
    "Date": "日期",
    "Language": "语言",
    "Abstract": "摘要",
    "Year": "年",
    "Month": "月",
    "Day": "日",
    "Volume / issue:": "卷 / 期：",
    "Pages:": "页码：",
    "Date (Y / M / D):": "日期（年 / 月 / 日）：",
    "Place:": "出版地：",
    "Edition:": "版次：",
    "Series:": "丛书：",
    "URL:": "网址：",
    "ISBN:": "ISBN：",
    "ISSN:": "ISSN：",
    "Number:": "编号：",
    "Genre:": "类别：",
    "Event:": "会议名称：",
    "Language:": "语言：",
    "Accessed:": "引用日期：",
    "Note:": "附注：",
    "Abstract:": "摘要：",
    "Family name": "姓",
    "Given name": "名",
    "Full name (literal)": "完整姓名（不拆分）",
    "For names that are not split into family and given name, such as 张伯伟 or an organisation.":
        "用于不拆分姓和名的名字，例如“张伯伟”或机构名称。",
    "Add": "添加",
    "Move Up": "上移",
    "Move Down": "下移",
    "Today": "今天",
    "e.g. PhD thesis": "例如：博士学位论文",
    "en-US, zh-CN … — decides “et al.” or “等” in GB/T 7714.": "en-US、zh-CN …… 决定 GB/T 7714 中用 “et al.” 还是 “等”。",
    "Look up DOI": "查询 DOI",
    "Look up arXiv": "查询 arXiv",
    "Looking up…": "正在查询…",
    "Filled from {source}: {fields}. Press Save to keep them.": "已从 {source} 填入：{fields}。按“保存”后生效。",
    "{source} knows nothing that is not already filled in.": "{source} 没有提供尚未填写的信息。",
    ", ": "、",
    "Preview": "预览",
    "Preview — {style}": "预览 — {style}",
    "No preview: {reason}": "无法预览：{reason}",
    "In text:": "文中引用：",
    "The title cannot be empty.": "题名不能为空。",
    "{doi} does not look like a DOI (10.xxxx/…).": "{doi} 不像是 DOI（10.xxxx/…）。",
    "{id} does not look like an arXiv ID (such as 1706.03762).": "{id} 不像是 arXiv 编号（例如 1706.03762）。",
    "Write the access date as YYYY-MM-DD.": "引用日期请写成 YYYY-MM-DD。",
    "Copy Reference": "复制参考文献",
    "Copy References": "复制参考文献",
    "Copy In-text Citation": "复制文中引用",
    "Copy In-text Citations": "复制文中引用",
    "Copy &References": "复制参考文献(&R)",
    "Copy &In-text Citations": "复制文中引用(&I)",
    "Export Selection…": "导出所选…",
    "Export Selection": "导出所选",
    "Export Library": "导出文献库",
    "Export &Library…": "导出文献库(&L)…",
    "Export &Selection…": "导出所选(&S)…",
    "Select the documents to cite in the library first.": "请先在文献库中选择要引用的文献。",
    "Select the documents to export in the library first.": "请先在文献库中选择要导出的文献。",
    "The library has no documents to export yet.": "文献库中还没有可导出的文献。",
    "Copied {n} reference(s) in {style}.": "已按 {style} 复制 {n} 条参考文献。",
    "Copied the in-text citation {text}.": "已复制文中引用 {text}。",
    "Could not write {path}: {reason}": "无法写入 {path}：{reason}",
    "Exported {n} reference(s) to {path}.": "已将 {n} 条参考文献导出到 {path}。",
    "References": "参考文献",
    "Copied the answer; its references could not be formatted ({reason}).": "已复制答案；参考文献无法格式化（{reason}）。",
    # memory: conversations, research profile, notes
    "Conversations": "对话记录",
    "New conversation": "新对话",
    "Search conversations…": "搜索对话…",
    "No conversations yet. Ask a question to start one.": "还没有对话。提一个问题即可开始。",
    "No conversation matches.": "没有匹配的对话。",
    "Untitled conversation": "未命名对话",
    "{n} turn(s)": "{n} 轮问答",
    "Rename": "重命名",
    "Delete": "删除",
    "Export as Markdown…": "导出为 Markdown…",
    "Rename conversation": "重命名对话",
    "Title:": "标题：",
    "Delete conversation": "删除对话",
    "Delete “{title}” and its answers? This cannot be undone.": "删除“{title}”及其答案？此操作无法撤销。",
    "Export conversation": "导出对话",
    "Exported the conversation to {path}": "已将对话导出到 {path}",
    "Could not read the conversation: {e}": "无法读取对话：{e}",
    "Could not save the conversation: {e}": "无法保存对话：{e}",
    "Wait for the answer (or stop it) before switching conversations.": "请等待回答完成（或停止）后再切换对话。",
    "&New Conversation": "新对话(&N)",
    "Export &Conversation as Markdown…": "将对话导出为 Markdown(&C)…",
    "Show C&onversations": "显示对话记录(&O)",
    "Understood as: {q}": "理解为：{q}",
    "Research &Profile…": "研究档案(&P)…",
    "Research Profile": "研究档案",
    "Saved the research profile.": "已保存研究档案。",
    "Could not save the profile: {e}": "无法保存研究档案：{e}",
    "PaperPilot uses your profile to try related terms when it searches and to shape its answers. The trace shows when it did.": "PaperPilot 会根据你的研究档案在检索时尝试相关术语，并调整回答方式；追踪记录会标明何时用到了它。",
    "Research": "研究",
    "Fields of research": "研究领域",
    "Topics": "研究主题",
    "Trusted venues": "信任的期刊/会议",
    "One venue per line": "每行一个期刊或会议",
    "e.g. medical imaging, ecology (comma-separated)": "例如：医学影像, 生态学（用逗号分隔）",
    "e.g. segmentation, urban birds (comma-separated)": "例如：图像分割, 城市鸟类（用逗号分隔）",
    "Keywords and synonyms": "关键词与同义词",
    "Keyword": "关键词",
    "Synonyms (comma-separated)": "同义词（用逗号分隔）",
    "Answer language": "回答语言",
    "Same as the question": "与问题相同",
    "Chinese": "中文",
    "English": "英文",
    "Default citation style": "默认引用格式",
    "Answer length": "回答长度",
    "Short": "简短",
    "Medium": "适中",
    "Long": "详细",
    "Tone": "语气",
    "Neutral": "中性",
    "Formal": "正式",
    "Plain language": "通俗",
    "Notes…": "笔记…",
    "Notes — {title}": "笔记 — {title}",
    "Untitled": "无标题",
    "Markdown. Notes are searchable, and the assistant can cite them as evidence.": "支持 Markdown。笔记可被搜索，助手也可以把它们作为证据引用。",
    "Your notes on this paper…": "你对这篇论文的笔记…",
    "Nothing written yet.": "尚未写任何内容。",
    "Could not save the notes": "无法保存笔记",
    "Saved the notes.": "已保存笔记。",
    "Your note on this paper": "你对这篇论文的笔记",
    # answer status: partial answers, related passages, copies (issue 10)
    "Partial answer": "部分回答",
    "Some parts of the question are not covered by the cited passages.": "问题的某些部分没有被所引用的段落覆盖。",
    "Your library does not hold enough evidence to answer this question.": "你的文献库中没有足够的证据来回答这个问题。",
    "The run reached its round limit; the answer may be incomplete.": "运行达到轮次上限，答案可能不完整。",
    "Not covered by this answer": "本答案未覆盖",
    "Not found in your library": "文献库中未找到",
    "Related passages": "相关段落",
    "Found and verified in your library, but they do not answer the question.": "在文献库中找到并已核实，但它们并不能回答这个问题。",
    "Status: {status} · confidence {confidence}": "状态：{status} · 置信度 {confidence}",
    "Finding the passage…": "正在定位段落…",
    "Part of the passage highlighted": "已高亮段落的一部分",
    "text from OCR": "文字来自 OCR 识别",
    "Read scanned pages by OCR (Chinese and English, offline)": "用 OCR 识别扫描页（中英文，离线）",
    # issue 14: reader, keyboard, layout, theme, status bar, import, settings, check library
    "Ask the model to quote each claim's support (one more call per answer)": "要求模型为每个论断引用原文依据（每次回答多一次调用）",
    "Ask the model to rank the search hits before reading (one more call per search)": "阅读前让模型为检索结果排序（每次检索多一次调用）",
    "Each search looks at 8 hits; the model scores how likely each answers the question and the best are read. Small local models score poorly.": "每次检索查看 8 条结果；模型评估每条回答问题的可能性，先读得分最高的。小型本地模型评分较差。",
    "Remove {what} from the library?\n\nThe library's copy and its search entries are deleted; your original files are not touched.":
        "从文献库中移除{what}？\n\n文献库中的副本及其检索条目会被删除；你的原始文件不受影响。",
    " The server offers {n} model(s).": " 服务器提供 {n} 个模型。",
    " · cancelled": " · 已取消",
    " · stopped, {n} not imported": " · 已中止，{n} 个未导入",
    " · {n} unsupported": " · {n} 个不支持",
    " · {n} updated from bibliography": " · {n} 个已按书目更新",
    "&Keyboard Shortcuts": "键盘快捷键(&K)",
    "<p>Drag <b>PDFs</b>, <b>text</b> or <b>Markdown</b> files — or whole folders — anywhere onto this window to add them to your library. PaperPilot keeps a copy, indexes it on this computer and answers questions with citations to the exact passages. Nothing is uploaded.</p><p>No papers at hand? Try the six short sample papers on urban birds.</p>":
        "<p>把 <b>PDF</b>、<b>文本</b>或 <b>Markdown</b> 文件（或整个文件夹）拖到本窗口任意位置，即可加入文献库。PaperPilot 会保存一份副本，在本机建立索引，并在回答问题时引用确切的段落。不会上传任何内容。</p><p>手头没有论文？试试六篇关于城市鸟类的简短示例论文。</p>",
    "A local research assistant: every claim in an answer points to a passage of your own papers that the program has checked.":
        "本地研究助手：答案中的每个论断都指向你自己论文中经程序核实的段落。",
    "About PaperPilot": "关于 PaperPilot",
    "All files": "所有文件",
    "An import is already running; wait for it or cancel it.": "已有导入正在进行；请等待其完成或取消。",
    "Cancelling import…": "正在取消导入…",
    "Cannot reach the server: check the URL and your network.": "无法连接服务器：请检查地址和网络。",
    "Checked": "已检查",
    "Checking the library…": "正在检查文献库…",
    "Clear the filter": "清除筛选",
    "Close &Document": "关闭文献(&D)",
    "Command": "命令",
    "Connected to {url}: the server offers {n} model(s). Choose one in the Model box.": "已连接 {url}：服务器提供 {n} 个模型。请在“模型”框中选择一个。",
    "Connected, but the server lists no models: type the model name.": "已连接，但服务器没有列出模型：请输入模型名称。",
    "Connection refused: nothing is listening at that address. Is the server running?": "连接被拒绝：该地址上没有服务在监听。服务器是否已启动？",
    "Dialogs and menus": "对话框和菜单",
    "Done: {status} in {s:.1f} s": "完成：{status}，用时 {s:.1f} 秒",
    "Everywhere": "任何位置",
    "Files that could not be imported": "无法导入的文件",
    "Filter boxes": "筛选框",
    "Fit the page to the width of the view": "使页面适应视图宽度",
    "Fit width": "适合宽度",
    "Go to page (type a number and press Enter)": "转到页面（输入页码并按 Enter）",
    "Import a folder of papers": "导入论文文件夹",
    "Imported {n} · {d} duplicate(s) · {f} failed": "已导入 {n} 个 · {d} 个重复 · {f} 个失败",
    "Importing {index} of {total}: {name}": "正在导入第 {index} 个，共 {total} 个：{name}",
    "Importing…": "正在导入…",
    "Keyboard Shortcuts": "键盘快捷键",
    "Keys": "按键",
    "Model: {model}": "模型：{model}",
    "Move into the results": "移到结果列表",
    "Next / previous control": "下一个 / 上一个控件",
    "No answer in time: the server is unreachable or too slow.": "未及时响应：服务器无法访问或速度太慢。",
    "No problems found.": "未发现问题。",
    "Not found (404): check the server URL (it usually ends in /v1) and the model name.": "未找到（404）：请检查服务器地址（通常以 /v1 结尾）和模型名称。",
    "OK.": "正常。",
    "Open in Window": "在窗口中打开",
    "Open the first result": "打开第一个结果",
    "Other": "其他",
    "Papers and bibliographies": "论文和书目",
    "Papers": "论文",
    "Problem": "问题",
    "Questions to try (clicking one imports the sample papers first):": "可以试试这些问题（点击后会先导入示例论文）：",
    "Rebuild Search Index": "重建搜索索引",
    "Rebuilding the search index…": "正在重建搜索索引…",
    "Rebuilt the search index: {n} chunks.": "已重建搜索索引：{n} 个分块。",
    "Recovered on opening": "打开时已恢复",
    "Removing {n} document(s)…": "正在移除 {n} 篇文献…",
    "Repair fixes what it can without deleting any stored file.": "修复会尽力修正问题，不会删除任何已保存的文件。",
    "Repaired": "已修复",
    "Repairing the library…": "正在修复文献库…",
    "Saving…": "正在保存…",
    "Show &Chat": "显示对话(&C)",
    "Show &Inspector": "显示检查器(&I)",
    "Show &Library": "显示文献库(&L)",
    "Show or hide the conversation list": "显示或隐藏对话记录列表",
    "Show or hide the page thumbnails": "显示或隐藏页面缩略图",
    "Show this document in a window of its own": "在单独的窗口中显示这篇文献",
    "Stop the run": "停止运行",
    "The library folder is read-only: problems can be shown but not repaired.": "文献库文件夹是只读的：只能显示问题，无法修复。",
    "The library is in order.": "文献库状态良好。",
    "The quotes are checked against the passages; a claim whose quote is not there is dropped. Small local models quote poorly: leave it off for them.":
        "引文会与段落核对；引文不在段落中的论断会被删除。小型本地模型不擅长引用：使用它们时请关闭此项。",
    "The server rejected the API key (401/403). Check the key.": "服务器拒绝了 API 密钥（401/403）。请检查密钥。",
    "The test failed: {error}": "测试失败：{error}",
    "Theme": "主题",
    "Follow the system": "跟随系统",
    "Light": "浅色",
    "Dark": "深色",
    "These settings cannot be saved: {reason}.": "无法保存这些设置：{reason}。",
    "Try asking:": "试着问：",
    "Welcome to PaperPilot": "欢迎使用 PaperPilot",
    "can be repaired": "可以修复",
    "cannot be repaired": "无法修复",
    "e.g. {example} (optional)": "例如 {example}（可选）",
    "e.g. {example}": "例如 {example}",
    "mode {mode} · policy {policy}": "模式 {mode} · 策略 {policy}",
    "of {pages}": "/ {pages}",
    "problem(s)": "个问题",
    "read-only": "只读",
    "{docs} documents · {chunks} chunks": "{docs} 篇文献 · {chunks} 个分块",
    "{n} not imported — show": "{n} 个未导入 — 查看",
    "Test cancelled.": "测试已取消。",
}

_ZH.update({k: v for k, v in LIBRARY_ZH.items() if k not in _ZH})
_ZH.update({k: v for k, v in WORKFLOWS_ZH.items() if k not in _ZH})
_ZH.update({k: v for k, v in SCREENS_ZH.items() if k not in _ZH})
_TABLES: dict[str, dict[str, str]] = {"zh": _ZH}
_language = "en"


def set_language(code: str) -> None:
    """Choose the UI language for widgets built from now on; unknown codes mean English."""
    global _language
    _language = code if code in _TABLES or code == "en" else "en"


def language() -> str:
    return _language


def said(message: Message) -> str:
    """What core says (a catalogued message: a missing part, a reason, a problem) in the
    interface language; the words, names and numbers it quotes stay as given."""
    return message.text(_language)


def said_or(message: Message | None, words: str) -> str:
    """``message`` in the interface language; without one (something recorded before core's
    messages carried codes), ``words`` as core wrote them."""
    return said(message) if message is not None else words


def said_each(messages: Sequence[Message], texts: Sequence[str]) -> list[str]:
    """Core's messages in the interface language, one per item of ``texts`` (the same things as
    core wrote them out); a result saved before messages carried codes keeps its own words."""
    if len(messages) == len(texts):
        return [said(m) for m in messages]
    return list(texts)


# Qt's own words (Cancel, Close Tab, the file dialog's buttons and columns), shipped with
# PySide6-Essentials as qtbase_<locale>.qm under PySide6/Qt/translations.
QT_CATALOGUES: dict[str, str] = {"zh": "zh_CN"}
_qt_translators: list[QTranslator] = []


def install_qt_translations() -> bool:
    """Load Qt's translations for the chosen language into the application (again: replacing
    earlier ones); True when a catalogue was found. English needs none."""
    from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

    app = QCoreApplication.instance()
    if app is None:
        return False
    for old in _qt_translators:
        QCoreApplication.removeTranslator(old)
    _qt_translators.clear()
    locale = QT_CATALOGUES.get(_language)
    if locale is None:
        return False
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    translator = QTranslator(app)
    if not translator.load(QLocale(locale), "qtbase", "_", folder):
        return False
    QCoreApplication.installTranslator(translator)
    _qt_translators.append(translator)
    gaps = _QT_GAPS.get(_language)
    if gaps:
        patch = _make_gap_translator(gaps, app)
        QCoreApplication.installTranslator(patch)
        _qt_translators.append(patch)
    return True


# Strings Qt 6.12's own qtbase_zh_CN.qm lacks (it has "Look in:" but not the newer "&Look in:"),
# so Qt's file dialog would show them in English.
_QT_GAPS: dict[str, dict[tuple[str, str], str]] = {
    "zh": {
        ("QFileDialog", "&Look in:"): "查找范围(&L)：",
        ("QFileDialog", "Files of &type:"): "文件类型(&T)：",
    }
}


def _make_gap_translator(gaps: dict[tuple[str, str], str], parent: object) -> QTranslator:
    from PySide6.QtCore import QObject, QTranslator

    class GapTranslator(QTranslator):
        def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str | None:
            return gaps.get((context, source))  # None: not ours, ask the next

        def isEmpty(self) -> bool:
            return False

    return GapTranslator(parent if isinstance(parent, QObject) else None)


# Separates a context from the English text in a table key ("library column" + CONTEXT +
# "Pages"), for one English word that needs two translations (a page count, a pages toggle).
CONTEXT = "\x04"


def tr(text: str, context: str = "") -> str:
    table = _TABLES.get(_language)
    if table is None:
        return text
    if context:
        found = table.get(f"{context}{CONTEXT}{text}")
        if found is not None:
            return found
    return table.get(text, text)
