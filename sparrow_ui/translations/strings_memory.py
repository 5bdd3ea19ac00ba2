"""UI strings of the Memory page (merged into ``i18n.STRINGS``)."""

STRINGS: dict[str, dict[str, str]] = {
    "memory.intro": {
        "en": "Facts the agent keeps across sessions. It saves them with the `remember` tool and looks them up with "
        "`recall`; each is marked with the session it came from. Instructions and secrets are refused, and "
        "recalled memories reach the model as quoted data, never as instructions.",
        "zh": "智能体跨会话保留的事实。它用 `remember` 工具保存、用 `recall` 工具查找，每条都标明来自哪个会话。"
        "指令和密钥会被拒绝；召回的记忆以引用数据的形式交给模型，绝不作为指令。",
    },
    "memory.scope": {"en": "Scope (user or workspace)", "zh": "范围（用户或工作区）"},
    "memory.scope_help": {
        "en": "Runs read and write the scope {scope} (set SPARROW_MEMORY_SCOPE to change it). "
        "Type a new name to start another scope.",
        "zh": "运行时读写的范围是 {scope}（可用 SPARROW_MEMORY_SCOPE 修改）。输入新名称即可创建其他范围。",
    },
    "memory.scope_env_invalid": {
        "en": "SPARROW_MEMORY_SCOPE is {scope!r}, which is not a scope name (use 1 to 64 letters, digits or "
        "_ . @ : -): runs have no long-term memory until it is fixed.",
        "zh": "SPARROW_MEMORY_SCOPE 的值 {scope!r} 不是有效的范围名称（可用 1 到 64 个字母、数字或 _ . @ : -）："
        "修正之前，运行将没有长期记忆。",
    },
    "memory.scope_invalid": {
        "en": "Choose another scope name: {scope!r} is not one (use 1 to 64 letters, digits or _ . @ : -).",
        "zh": "请换一个范围名称：{scope!r} 无效（可用 1 到 64 个字母、数字或 _ . @ : -）。",
    },
    "memory.add_title": {"en": "Add a fact", "zh": "添加事实"},
    "memory.add_label": {"en": "Fact", "zh": "事实"},
    "memory.add_placeholder": {"en": "The user prefers metric units", "zh": "用户偏好公制单位"},
    "memory.add": {"en": "Save", "zh": "保存"},
    "memory.saved": {"en": "Saved as #{id}.", "zh": "已保存为 #{id}。"},
    "memory.exists": {"en": "Already saved as #{id}.", "zh": "已存在：#{id}。"},
    "memory.refused": {"en": "Not saved ({rule}). {reason}", "zh": "未保存（{rule}）。{reason}"},
    "memory.rule.length": {"en": "length", "zh": "长度不合适"},
    "memory.rule.instruction": {"en": "an instruction to the agent", "zh": "像是给智能体的指令"},
    "memory.rule.secret": {"en": "a secret", "zh": "包含密钥"},
    "memory.rule.scope": {"en": "scope name", "zh": "范围名称无效"},
    "memory.rule.full": {"en": "scope full", "zh": "该范围已满"},
    "memory.search": {"en": "Search memories", "zh": "搜索记忆"},
    "memory.search_placeholder": {"en": "e.g. units, city, 茶", "zh": "例如：单位、城市、tea"},
    "memory.count": {"en": "{count} memories in scope {scope}", "zh": "范围 {scope} 中共有 {count} 条记忆"},
    "memory.count_one": {"en": "1 memory in scope {scope}", "zh": "范围 {scope} 中共有 1 条记忆"},
    "memory.matches": {"en": "{count} memories match “{query}”", "zh": "{count} 条记忆匹配“{query}”"},
    "memory.matches_one": {"en": "1 memory matches “{query}”", "zh": "1 条记忆匹配“{query}”"},
    "memory.none": {
        "en": "No memories in this scope yet. The agent saves facts with `remember` as you chat, or add one above.",
        "zh": "这个范围还没有记忆。聊天时智能体会用 `remember` 保存事实，也可以在上方手动添加。",
    },
    "memory.no_match": {"en": "No memory matches this search.", "zh": "没有匹配的记忆。"},
    "memory.by_agent": {"en": "saved by the agent", "zh": "由智能体保存"},
    "memory.by_user": {"en": "added by a person", "zh": "由用户添加"},
    "memory.rank": {"en": "rank {rank}", "zh": "第 {rank} 位"},
    "memory.no_source": {"en": "no source session", "zh": "无来源会话"},
    "memory.source_deleted": {"en": "from a deleted session ({id})", "zh": "来自已删除的会话（{id}）"},
    "memory.open_source": {"en": "Open its session", "zh": "打开来源会话"},
    "memory.delete": {"en": "Delete", "zh": "删除"},
    "memory.deleted": {"en": "Memory deleted.", "zh": "记忆已删除。"},
    "memory.caution": {
        "en": "This text reads like an instruction. It was not written through the guard; recall shows it to the "
        "model as quoted data with a caution. Delete it unless you trust it.",
        "zh": "这段文字看起来像指令，且并非经由防护写入；召回时会作为带警示的引用数据交给模型。除非可信，否则请删除。",
    },
}
