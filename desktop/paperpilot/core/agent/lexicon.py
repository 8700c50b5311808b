"""Word lists of the question analysis (``agent.analysis``): English function and question words,
the head nouns that say what kind of answer is asked for, and Chinese glue characters and words.

Plain data, no rules: the English rules are in ``analysis_en``, the Chinese in ``analysis_zh``.
"""

from __future__ import annotations

# Capitalised at a sentence start or as a function word, not because they are names.
NOT_NAME_WORDS = (
    "the a an in on at it its this that these those he she they we his her their there here "
    "as after before during since while when where what which who whom whose how although "
    "however but and or if for from by with to of also both each other some many most "
    "several is are was were be been do does did has have had can could will would should "
    "might january february march april may june july august september october november "
    "december monday tuesday wednesday thursday friday saturday sunday aside besides "
)


NOT_NAMES = frozenset(NOT_NAME_WORDS.split())


# Instruction verbs that open a request ("Comparing BERT and GPT-2: …", "Explain ELMo"): capitalised
# because they start the sentence, not part of the name that follows them.
OPENING_VERBS = frozenset(
    ["compare", "comparing", "contrast", "contrasting", "describe", "describing", "explain", "explaining", "list", "listing", "summarise", "summarize", "summarising", "summarizing", "tell", "give", "name", "define", "discuss", "discussing", "outline", "evaluate", "evaluating", "identify", "show", "find", "using", "use", "given", "based", "considering", "regarding", "assuming", "suppose", "supposing", "according", "looking", "focusing", "please"]
)


# The head noun after which/what says what kind of thing is asked for.
TIME_NOUNS = frozenset(
    [
        "year",
        "years",
        "date",
        "day",
        "month",
        "decade",
        "century",
        "time",
        "timeframe",
        "period",
        "era",
        "season",
        "age",
    ]
)


PLACE_NOUNS = frozenset(
    [
        "city",
        "town",
        "village",
        "country",
        "county",
        "state",
        "province",
        "region",
        "place",
        "location",
        "area",
        "island",
        "continent",
        "capital",
        "district",
        "municipality",
        "neighborhood",
        "neighbourhood",
        "borough",
        "street",
        "river",
        "mountain",
        "lake",
        "nation",
        "headquarters",
        "birthplace",
    ]
)


PERSON_NOUNS = frozenset(
    [
        "person",
        "man",
        "woman",
        "actor",
        "actress",
        "director",
        "writer",
        "author",
        "singer",
        "musician",
        "player",
        "composer",
        "producer",
        "politician",
        "president",
        "king",
        "queen",
        "leader",
        "founder",
        "creator",
        "artist",
        "poet",
        "novelist",
        "screenwriter",
        "manager",
        "coach",
        "scientist",
        "physicist",
        "chemist",
        "inventor",
        "designer",
        "architect",
        "painter",
        "rapper",
        "drummer",
        "guitarist",
        "member",
        "wife",
        "husband",
        "son",
        "daughter",
        "father",
        "mother",
        "brother",
        "sister",
        "spouse",
        "child",
        "boy",
        "girl",
        "people",
        "philosopher",
        "economist",
        "journalist",
        "presenter",
        "host",
        "comedian",
        "dancer",
        "model",
        "pilot",
    ]
)


COUNT_NOUNS = frozenset(["number", "amount", "population", "count", "total", "size"])


# Measured quantities: "what accuracy …", "what percentage …" ask for a value.
MEASURE_NOUNS = frozenset(
    ["accuracy", "score", "rate", "percentage", "percent", "ratio", "speed", "cost", "price", "length", "height",
     "weight", "capacity", "temperature", "value", "f1", "precision", "recall", "depth", "area", "distance",
     "duration", "budget", "revenue", "salary", "age", "elevation"]
)  # fmt: skip


# Aspect nouns: what is asked about a topic, not the topic ("the limitations of X"). They are
# soft parts: required for "answered", but no sign that the library is about the question.
ASPECTS = frozenset(
    [
        "limitation",
        "limitations",
        "advantage",
        "advantages",
        "disadvantage",
        "disadvantages",
        "drawback",
        "drawbacks",
        "benefit",
        "benefits",
        "challenge",
        "challenges",
        "application",
        "applications",
        "strength",
        "strengths",
        "weakness",
        "weaknesses",
        "contribution",
        "contributions",
        "idea",
        "ideas",
        "goal",
        "goals",
        "problem",
        "problems",
        "solution",
        "solutions",
        "difference",
        "differences",
        "similarity",
        "similarities",
        "pros",
        "cons",
        "overview",
        "summary",
        "details",
        "definition",
        "meaning",
    ]
)


GENERIC = frozenset(
    [
        "name",
        "names",
        "type",
        "kind",
        "sort",
        "thing",
        "things",
        "one",
        "ones",
        "part",
        "parts",
        "way",
        "ways",
        "something",
        "someone",
        "also",
        "known",
        "called",
        "used",
        "use",
        "uses",
        "based",
        "located",
        "held",
        "made",
        "make",
        "makes",
        "take",
        "takes",
        "give",
        "gives",
        "get",
        "gets",
        "go",
        "goes",
        "come",
        "came",
        "become",
        "became",
        "well",
        "many",
        "much",
        "new",
        "other",
        "another",
        "same",
        "different",
        "effect",
        "effects",
        "impact",
        "role",
        "purpose",
        "method",
        "methods",
        "result",
        "results",
        "approach",
        "paper",
        "papers",
        "study",
        "studies",
        "work",
        "works",
        "article",
        "question",
        "questions",
        "answer",
        "information",
        "example",
        "examples",
        "main",
        "important",
        "aspect",
        "aspects",
        "feature",
        "features",
        "current",
        "currently",
        "originally",
        "formerly",
        "later",
        "first",
        "second",
        "third",
        "include",
        "includes",
        "including",
        "besides",
        "aside",
        "around",
        "often",
        "still",
        "like",
        "number",
        "year",
        "years",
        "date",
        "time",
        *list(ASPECTS),
        # light and containment verbs: "shares a border" is "borders", "contains N papers" is "N papers"
        *["share", "shares", "shared", "sharing", "contain", "contains", "contained", "consist", "consists"],
        *["comprise", "comprises", "feature", "features", "featured", "have", "has", "had", "hold", "holds"],
        # the comparison itself ("how do A and B differ") is the question's form, not a concept
        *["differ", "differs", "differed", "compare", "compared", "contrast", "versus"],
    ]
)


ENTITY_STOP = frozenset({"ai", "i", "ok"})


MONTHS = frozenset(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
)


NOT_NAMES_LOWER = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})


AUX = frozenset(
    [
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
        "does",
        "did",
        "do",
    ]
)


PREPOSITIONS = frozenset(
    [
        "in",
        "on",
        "at",
        "by",
        "of",
        "for",
        "from",
        "to",
        "with",
        "since",
        "during",
        "until",
        "under",
        "into",
        "as",
        "than",
    ]
)


COMPASS = frozenset(["north", "south", "east", "west", "northern", "southern", "eastern", "western"])


# A concept is what is left of a run of Chinese characters once the words that only glue the
# sentence together are cut out: particles and conjunctions, question words, demonstratives
# and numerals with their measure word (这篇, 几个, 多少篇), prepositions and a small set of
# relation verbs (包含, 相比, 属于 …) that link concepts instead of being one.
ZH_QUESTION_WORDS = (
    "多少篇", "多少个", "多少种", "多少位", "多少项", "多少次", "多少年",
    "为什么", "什么时候", "怎么样", "是不是", "有没有", "什么", "哪些", "哪个", "哪一", "哪种", "哪里", "哪儿", "哪年",
    "多少", "多久", "多长", "多大", "多高", "多远", "多重", "如何", "怎么", "怎样", "为何", "何时", "何地", "是否",
    "能否", "可否", "请问", "谁",
)  # fmt: skip


ZH_VERBS = (
    "包含", "包括", "相比", "相较", "比较", "对比", "区别", "属于", "成为", "位于", "具有", "拥有", "采用", "使用", "利用",
    "提出", "进行", "通过", "基于", "根据", "关于", "对于", "以及", "还是", "或者", "并且", "而且", "但是", "因为",
    "所以", "如果", "可以", "能够", "应该", "需要", "已经", "主要", "一般", "通常", "分别", "其中", "之间", "之后",
    "之前", "以来", "以后", "以前", "出现", "发生", "开始", "结束", "介绍", "告诉", "说明", "解释", "描述", "称为",
    "叫做", "被称为", "作为", "来自", "存在", "有关", "相关", "涉及", "得到", "获得", "导致", "造成", "引起", "表示",
    "认为", "发现", "提到", "指出", "是指", "指的是", "意思", "含义", "定义", "参与", "现在", "体现在", "体现",
)  # fmt: skip


ZH_DEMONSTRATIVE = "这那哪每各该本此其"


ZH_NUMERAL = "一二两三四五六七八九十百千万几第"


ZH_MEASURE = "个篇种位名项条件次年月天日本部只张章节类份届座所家门首台股处路区派国批支"


ZH_PARTICLES = "的了是在和与及或吗呢吧啊把被对从向于将就也而并之给让使由比跟同以为有"


# Words that hold a glue character but are words (参与 is not 参 + 与, 目的 not 目 + 的).
ZH_PROTECTED = (
    "给予", "目的", "的确", "对象", "对手", "对方", "将军", "将来", "从而", "和平", "和谐", "及时", "在于",
    "存在", "实在", "由于", "把握", "就业", "也许", "而是", "并且", "并非", "为止", "以为", "认为",
    "成为", "作为", "因为", "比赛", "比例", "比较", "同时", "同学", "同样", "以后", "以前", "以来", "所以", "可以",
    "有关", "有限", "有效", "所有", "没有", "具有", "拥有", "使用", "使得", "跟随", "向量", "方向",
)  # fmt: skip


ZH_GENERIC = frozenset(
    ["论文", "文章", "本文", "研究", "方法", "问题", "内容", "作者", "文献", "东西", "方面", "情况", "部分",
     "特点", "作用", "影响", "意义", "结果", "时候", "地方", "原因", "目的", "主要", "优势", "不同", "区别", "关系",
     # modifiers rather than concepts of their own
     "传统", "现有", "常见", "一般", "普通", "经典", "新型", "主流", "目前", "现在", "以往"]
)  # fmt: skip


# Words about the library or the task itself ("总结库中这些论文的研究进展"): never a concept the
# library must mention, never missing from an answer, never bridged into a search term of its own.
ZH_TASK_WORDS = frozenset(
    ["论文", "文献", "文章", "本文", "研究", "库中", "库里", "文库", "文献库", "资料库", "这些", "那些", "进展",
     "方向", "研究方向", "总结", "概括", "概述", "介绍", "综述", "内容", "资料", "我的", "提到", "讲了", "说了",
     "相关", "有关", "关于", "主要", "一下", "请问", "告诉",
     # what the user asks for, not what the papers must be about ("有哪些建议")
     "建议"]
)  # fmt: skip


# The English side of the same: words about the library or the task, never searched across languages.
EN_TASK_WORDS = frozenset(
    ["library", "paper", "papers", "article", "articles", "research", "study", "studies", "literature",
     "document", "documents", "summary", "summarize", "summarise", "progress", "direction", "directions", "work", "works"]
)  # fmt: skip


# Words of a research question across the library ("synthesis", ``agent.synthesis``) that are left
# once its scope, tasks and facets are read: about the library, the papers as papers, or the asking
# itself. Never a concept the papers must mention.
SYNTH_GENERIC_EN = frozenset(
    ["library", "collection", "collections", "my", "our", "these", "those", "all", "each", "every", "any",
     "paper", "papers", "article", "articles", "study", "studies", "studied", "studying", "work", "works",
     "publication", "publications", "literature", "documents", "ones", "research", "researched",
     "researchers", "authors", "field's", "across", "within", "among", "say", "says", "said", "discuss", "discussed",
     "discusses", "deal", "deals", "dealt", "propose", "proposed", "proposes", "report", "reported", "reports",
     "address", "addressed", "addresses", "cover", "covered", "covers", "examine", "examined", "investigate",
     "investigated", "explore", "explored", "look", "looked", "give", "me", "us", "tell", "list", "show",
     "point", "points", "pointed", "main", "key", "recent", "recently", "new", "novel", "latest", "published",
     "publish", "written", "appeared", "appear", "concern", "concerned", "they", "them", "their", "it", "its",
     "do", "does", "did", "have", "has", "had", "were", "was", "are", "is", "be", "been", "what", "which", "how",
     "please", "can", "could", "would", "should", "help", "find", "found", "finding", "findings", "conclude",
     "concluded", "conclusion", "conclusions", "compare", "compared", "comparing", "comparison", "summarise",
     "summarize", "summary", "overview", "progress", "directions", "direction", "suggest", "promising",
     "future", "open", "questions", "gaps", "remain", "remains", "method", "methods", "approach",
     "approaches", "result", "results", "changed", "evolved", "progressed", "developed", "whole",
     # verbs of reporting and asking: what the papers do with a topic, not the topic
     "acknowledge", "acknowledged", "identify", "identified", "identifies", "take", "taken", "took", "use", "used",
     "using", "according", "mention", "mentioned", "mentions", "describe", "described", "describes", "present",
     "presented", "presents", "focus", "focused", "focuses", "tackle", "tackled", "offer", "offered", "provide",
     "provided", "provides", "highlight", "highlighted", "raise", "raised", "leave", "left", "written", "wrote",
     # how a follow-up narrows or adds ("only the clinical ones", "add the sample size")
     "only", "just", "add", "also", "plus", "between", "other", "various", "different", "respective",
     "respectively", "together", "overall", "both"]
)  # fmt: skip


# The Chinese side: cut out of a synthesis question before its concepts are read (库中的论文, 帮我,
# 分别, 给出 …). 论文 / 文献 / 文章 are cut only where they stand for the papers themselves (see
# ``agent.synthesis``): 学术论文阅读 and 文献阅读 are topics.
SYNTH_GENERIC_ZH = (
    "我的文献库", "文献库", "资料库", "库中", "库里", "这些", "那些", "所有", "各篇", "每篇", "帮我", "帮忙", "请问", "请",
    "一下", "给出", "给我", "列出", "提出了", "提出", "分别", "各自", "所用", "所采用", "采用了", "使用了", "主要",
    "有哪些", "哪些", "什么", "研究了", "研究", "关于", "方面", "领域", "发表的", "发表", "它们", "其中", "工作",
    "内容", "情况", "成果", "问题", "投稿", "有何", "有没有", "还有", "都用了", "都用", "都有", "以来", "至今", "以前",
    "以后", "只看", "只要", "仅看", "只选", "仅限", "再加上", "加上", "如何", "怎样", "相关", "有关", "涉及", "讨论了", "讨论",
)  # fmt: skip
