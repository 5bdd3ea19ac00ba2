"""The ``access`` commands: read-only share links (create, list, revoke) and claiming data saved without sign-in."""

from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import quote

from agent_core.cli.common import EXIT_OK, CliError, open_store, store_errors, subcommand
from agent_core.formatting import format_timestamp
from agent_core.longterm.memory import MemoryStore
from agent_core.store import ShareLinkInfo, ShareLinkInvalid


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``access`` command and its subcommands."""
    access = subparsers.add_parser("access", help="share sessions read-only; claim data saved without sign-in")
    sub = access.add_subparsers(dest="access_command", required=True)
    share = subcommand(sub, "share", "create a read-only link to a session (printed once)", cmd_share)
    share.add_argument("id", help="session id")
    share.add_argument("--snapshot", metavar="ID", help="share only the session up to this snapshot")
    share.add_argument("--days", type=float, help="the link expires after this many days (default: never)")
    share.add_argument("--anonymous", action="store_true", help="the link works without signing in")
    share.add_argument("--app-url", metavar="URL", help="print a full link to the app at this URL")
    links = subcommand(sub, "links", "list a session's share links (never their tokens)", cmd_links)
    links.add_argument("id", help="session id")
    links.add_argument("--json", action="store_true", help="print a JSON array")
    revoke = subcommand(sub, "revoke", "stop a share link from opening anything", cmd_revoke)
    revoke.add_argument("link", help="share link id (from `access links`)")
    claim = subcommand(sub, "claim", "make sessions and memories saved without sign-in yours (admins)", cmd_claim)
    claim.add_argument("ids", nargs="*", help="session ids (default: every session without an owner)")


def cmd_share(args: argparse.Namespace) -> int:
    """Create a share link and print its token (or the full URL with ``--app-url``)."""
    with store_errors():
        try:
            token, _ = open_store(args).shares.create(
                args.id, snapshot_id=args.snapshot, expires_in_days=args.days, allow_anonymous=args.anonymous
            )
        except ValueError as exc:
            raise CliError(str(exc)) from None
    print(f"{args.app_url.rstrip('/')}/?share={quote(token)}" if args.app_url else token)
    return EXIT_OK


def cmd_links(args: argparse.Namespace) -> int:
    """List the session's links, newest first."""
    with store_errors():
        links = open_store(args).shares.list(args.id)
    if args.json:
        print(json.dumps([_link_json(link) for link in links], indent=2))
        return EXIT_OK
    if not links:
        print("no share links", file=sys.stderr)
    for link in links:
        expires = f"expires {format_timestamp(link.expires_at)}" if link.expires_at else "no expiry"
        who = "anyone with the link" if link.allow_anonymous else "signed-in viewers"
        print(f"{link.id}  {link.state:<7}  {expires}  {who}  {link.snapshot_id or 'whole session'}")
    return EXIT_OK


def cmd_revoke(args: argparse.Namespace) -> int:
    """Revoke one link."""
    with store_errors():
        try:
            open_store(args).shares.revoke(args.link)
        except ShareLinkInvalid as exc:
            raise CliError(str(exc)) from None
    print(f"revoked {args.link}", file=sys.stderr)
    return EXIT_OK


def cmd_claim(args: argparse.Namespace) -> int:
    """Claim sessions (and, with no ids given, memories) that have no owner; needs ``--user`` of an admin."""
    store = open_store(args)
    if store.actor.owner is None or not store.actor.is_admin:
        raise CliError("claim needs --user SUBJECT of an admin (listed in $SPARROW_ADMINS)")
    with store_errors():
        ids = args.ids or [s.id for s in store.sessions.list(unowned=True)]
        for session_id in ids:
            try:
                store.sessions.claim(session_id)
            except ValueError as exc:
                raise CliError(str(exc)) from None
        memories = 0 if args.ids else MemoryStore(store.engine, actor=store.actor).claim_unowned()
    print(f"claimed {len(ids)} session(s) and {memories} memory(ies) for {store.actor.owner}", file=sys.stderr)
    return EXIT_OK


def _link_json(link: ShareLinkInfo) -> dict[str, object]:
    return {
        "id": link.id,
        "session_id": link.session_id,
        "snapshot_id": link.snapshot_id,
        "created_at": link.created_at,
        "expires_at": link.expires_at,
        "revoked_at": link.revoked_at,
        "allow_anonymous": link.allow_anonymous,
        "active": link.active,
    }
