"""UI strings of the MCP servers section of the Tools page (merged into ``i18n.STRINGS``)."""

STRINGS: dict[str, dict[str, str]] = {
    "mcp.title": {"en": "MCP servers", "zh": "MCP 服务器"},
    "mcp.none": {
        "en": "No MCP servers configured. Put an `mcp.json` (or Claude Code's `.mcp.json`, Cursor's "
        "`.cursor/mcp.json`) with an `mcpServers` object beside the app (or point "
        "`SPARROW_MCP_CONFIG` at one) and restart the app: each server's tools then appear here.",
        "zh": "尚未配置 MCP 服务器。在应用旁放一个含 `mcpServers` 对象的 `mcp.json`（或 Claude Code 的 `.mcp.json`、"
        "Cursor 的 `.cursor/mcp.json`；或用 `SPARROW_MCP_CONFIG` "
        "指向它）并重启应用，各服务器的工具就会出现在这里。",
    },
    "mcp.tools": {"en": "Tools: {tools}", "zh": "工具：{tools}"},
    "mcp.no_tools": {"en": "No tools listed.", "zh": "没有列出工具。"},
    "mcp.trusted": {"en": "trusted: runs without approval", "zh": "已信任：无需批准即可运行"},
    "mcp.untrusted": {"en": "asks for approval before each call", "zh": "每次调用前需要批准"},
    "mcp.started": {"en": "started in {ms:.0f} ms", "zh": "启动用时 {ms:.0f} 毫秒"},
}
