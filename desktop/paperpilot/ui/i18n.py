"""Interface language: ``tr("English text")`` returns the text in the chosen UI language.

English strings are the keys, so untranslated text simply stays English. The language is
chosen once at start-up (``set_language(settings.ui.ui_language)``); widgets read ``tr`` when
they are built, so a change applies after a restart.
"""

from __future__ import annotations

LANGUAGES: dict[str, str] = {"en": "English", "zh": "中文"}

_ZH: dict[str, str] = {
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
    "Starting…": "正在开始…",
    "Round {n}": "第 {n} 轮",
    "Round {n} · thinking…": "第 {n} 轮 · 思考中…",
    "Round {n} · searching “{q}”…": "第 {n} 轮 · 搜索“{q}”…",
    "Round {n} · reading {k} passage(s)…": "第 {n} 轮 · 阅读 {k} 个段落…",
    "Round {n} · listing documents…": "第 {n} 轮 · 列出文献…",
    "Round {n} · writing the answer…": "第 {n} 轮 · 撰写答案…",
    "Round {n} · {k} hit(s) for “{q}”": "第 {n} 轮 · “{q}”命中 {k} 条",
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
    "Custom": "自定义",
    "Answers": "回答",
    "Maximum rounds": "最大轮次",
    "Temperature": "温度",
    "Citation style": "引用格式",
    "Import": "导入",
    "Chunk size (characters)": "分块大小（字符）",
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
}

_TABLES: dict[str, dict[str, str]] = {"zh": _ZH}
_language = "en"


def set_language(code: str) -> None:
    """Choose the UI language for widgets built from now on; unknown codes mean English."""
    global _language
    _language = code if code in _TABLES or code == "en" else "en"


def language() -> str:
    return _language


def tr(text: str) -> str:
    table = _TABLES.get(_language)
    if table is None:
        return text
    return table.get(text, text)
