"""UI strings of sign-in, accounts and share links (merged into ``i18n.STRINGS``)."""

STRINGS: dict[str, dict[str, str]] = {
    "model.locked": {
        "en": "The operator fixed the model settings: {model} at {url}.",
        "zh": "运营方已锁定模型设置：{url} 上的 {model}。",
    },
    "model.operator": {"en": "this server's", "zh": "本服务器提供"},
    "model.key_not_sent": {
        "en": "The server's key is sent only to the endpoints its operator configured: type your own key for this one.",
        "zh": "服务器的密钥只会发送到运营方配置的端点：请为此端点输入你自己的密钥。",
    },
    "auth.title": {"en": "Sign in to Sparrow", "zh": "登录 Sparrow"},
    "auth.body": {
        "en": "This Sparrow is shared by a team: sign in to see your own sessions and memories.",
        "zh": "这个 Sparrow 由团队共用：登录后可查看你自己的会话和记忆。",
    },
    "auth.shared_body": {
        "en": "This share link is for signed-in viewers: sign in with any account to watch the session.",
        "zh": "此分享链接仅限已登录的查看者：用任意账号登录即可查看该会话。",
    },
    "auth.sign_in": {"en": "Sign in", "zh": "登录"},
    "auth.sign_in_with": {"en": "Sign in with {name}", "zh": "使用 {name} 登录"},
    "auth.sign_out": {"en": "Sign out", "zh": "退出登录"},
    "auth.signed_in_as": {"en": "Signed in as {who}", "zh": "已登录：{who}"},
    "auth.admin": {"en": "admin", "zh": "管理员"},
    "share.read_only": {
        "en": "You are viewing a shared session, read-only: nothing here can be changed or run.",
        "zh": "你正在以只读方式查看分享的会话：这里的任何内容都不能修改或运行。",
    },
    "share.invalid": {
        "en": "This share link is not valid: it may have been revoked or have expired.",
        "zh": "此分享链接无效：它可能已被撤销或已过期。",
    },
    "share.leave": {"en": "Leave the shared view", "zh": "离开分享视图"},
    "share.button": {"en": "Share", "zh": "分享"},
    "share.anonymous": {"en": "Anyone with the link (no sign-in)", "zh": "任何持有链接的人（无需登录）"},
    "share.days": {"en": "Expires after (days, 0: never)", "zh": "有效期（天，0 表示永不过期）"},
    "share.snapshot": {"en": "What to share", "zh": "分享范围"},
    "share.whole": {"en": "the whole session", "zh": "整个会话"},
    "share.create": {"en": "Create link", "zh": "创建链接"},
    "share.created": {
        "en": "Copy the link now: it is shown only once.",
        "zh": "请立即复制链接：它只显示这一次。",
    },
    "share.links": {"en": "Links", "zh": "链接"},
    "share.revoke": {"en": "Revoke", "zh": "撤销"},
    "share.state.active": {"en": "active", "zh": "有效"},
    "share.state.revoked": {"en": "revoked", "zh": "已撤销"},
    "share.state.expired": {"en": "expired", "zh": "已过期"},
    "share.expires": {"en": "expires {when}", "zh": "{when} 过期"},
    "share.no_expiry": {"en": "no expiry", "zh": "永不过期"},
    "share.for_anyone": {"en": "anyone", "zh": "任何人"},
    "share.for_signed_in": {"en": "signed-in viewers", "zh": "已登录的查看者"},
    "owner.none": {"en": "no owner (made before sign-in)", "zh": "无所有者（启用登录前创建）"},
    "owner.label": {"en": "owner {who}", "zh": "所有者 {who}"},
    "owner.claim": {"en": "Claim", "zh": "认领"},
    "owner.claimed": {"en": "The session is yours now.", "zh": "该会话现在归你所有。"},
    "owner.claim_memories": {
        "en": "Claim {count} memories saved without sign-in",
        "zh": "认领 {count} 条启用登录前保存的记忆",
    },
    "traces.started_by": {"en": "Started by {who}", "zh": "发起人：{who}"},
}
