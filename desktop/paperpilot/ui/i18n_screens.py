"""Chinese texts of the screens' second pass (the trace, the viewer's locator, model presets,
keyboard help), kept apart from i18n's main table so that helpers editing either do not
collide. Keys with a context are written ``"context\\x04English"`` (see ``i18n.tr``)."""

from __future__ import annotations

SCREENS_ZH: dict[str, str] = {
    # one English word, two meanings
    "library column\x04Pages": "页数",
    "thumbnails\x04Pages": "页面",
    # model presets
    "Qwen / DashScope (China)": "通义千问 / DashScope（中国内地）",
    "Qwen / DashScope (international)": "通义千问 / DashScope（国际）",
    "Moonshot / Kimi": "月之暗面 / Kimi",
    "Zhipu GLM (BigModel)": "智谱 GLM（BigModel）",
    "llama.cpp server": "llama.cpp 服务器",
    "{provider} has retired “{model}”: use “{new}”.": "{provider} 已停用“{model}”：请改用“{new}”。",
    "Enter the server URL first.": "请先填写服务器地址。",
    # the inspector: trace rows, passage locators
    "Select a step to read it in full.": "选择一个步骤即可在此阅读全文。",
    "doc {doc} / passage {seg}": "文献 {doc} / 段落 {seg}",
    "doc {n}": "文献 {n}",
    "p. {n}": "第 {n} 页",
    "{mode} · policy {policy} · ≤ {n} rounds": "{mode} · 策略 {policy} · 最多 {n} 轮",
    "cites {ids}": "引用 {ids}",
    "(forced)": "（被迫作答）",
    "{n} hit(s), {k} new": "{n} 条命中，{k} 条新的",
    "(read)": "（已读）",
    "score {s}": "得分 {s}",
    "{n} passage(s)": "{n} 个段落",
    "decide {d} ms · tool {t} ms": "决策 {d} 毫秒 · 工具 {t} 毫秒",
    "{i} in · {o} out": "输入 {i} · 输出 {o}",
    "read {n} passage(s) ({where})": "阅读 {n} 个段落（{where}）",
    "list documents": "列出文献",
    "write the answer": "撰写答案",
    # keyboard
    "Next match": "下一个匹配",
    "Previous match": "上一个匹配",
    "Clear the search (again: back to the page)": "清除查找（再按一次：回到页面）",
    "Close the conversations drawer": "关闭对话记录抽屉",
    # citation styles, as the settings and the metadata preview name them
    "GB/T 7714-2015 (numeric)": "GB/T 7714-2015（顺序编码制）",
    "GB/T 7714-2015 (author-date)": "GB/T 7714-2015（著者-出版年制）",
    "APA 7th edition": "APA 第 7 版",
    "MLA 9th edition": "MLA 第 9 版",
    "Chicago (author-date)": "芝加哥格式（著者-出版年制）",
    "Chicago Manual of Style 17th edition (author-date)": "芝加哥格式第 17 版（著者-出版年制）",
    "GB/T 7714-2015 顺序编码制 (numeric)": "GB/T 7714-2015 顺序编码制",
    "GB/T 7714-2015 著者-出版年制 (author-date)": "GB/T 7714-2015 著者-出版年制",
    # the literature matrix's default columns and the draft's templates
    "Research question": "研究问题",
    "Approach / method": "方法",
    "Data / materials": "数据 / 材料",
    "Evaluation / metrics": "评估 / 指标",
    "Main results": "主要结果",
    "Limitations": "不足",
    "proposal-zh": "开题报告（中文）",
    "review-en": "文献综述（英文）",
    ", ": "，",
}
