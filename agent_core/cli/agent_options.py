"""What the commands that run the agent share: the model from the options, the tools, the agent, the approvals.

Kept apart from ``common`` so that the commands that only read the store (``sessions list``) do not import the
engine, the tool catalogue or the model client.
"""

from __future__ import annotations

import argparse
import os
import sys

from agent_core import models
from agent_core.cli.exit_codes import CliError
from agent_core.cli.mcp_option import mcp_source
from agent_core.engine.agent import Agent, AgentSettings
from agent_core.engine.approval_policy import app_defaults
from agent_core.engine.approvals import Approvals
from agent_core.engine.run_context import settings_problem
from agent_core.env_settings import env_settings
from agent_core.models.chat import ModelError
from agent_core.models.local_llama import local_chat_model
from agent_core.runtime.catalog import tool_catalog
from agent_core.runtime.session_runs import protocol_from_config
from agent_core.store import SessionConfig
from agent_core.tools import Tool


def local_model(args: argparse.Namespace) -> models.OpenAIChatModel:
    """The built-in small model, its server started now (it stops when the command exits)."""
    try:
        return local_chat_model(timeout=args.timeout, streaming=not args.no_stream)
    except ModelError as exc:
        raise CliError(str(exc)) from None


def model_from_args(args: argparse.Namespace, default_model: str | None = None) -> models.OpenAIChatModel:
    """An OpenAIChatModel from CLI options and the environment (then ``default_model``, e.g. a session's)."""
    if getattr(args, "provider", None) == "local":
        return local_model(args)
    try:
        return models.OpenAIChatModel(  # the openai client is imported here, by the commands that call a model
            args.model or env_settings().sparrow_model or default_model or None,
            api_key=args.api_key,
            base_url=args.base_url,
            timeout=args.timeout,
            streaming=not args.no_stream,
        )
    except ModelError as exc:
        raise CliError(str(exc)) from None


def select_tools(names: str | None, *, memory: bool = True, mcp: str | os.PathLike[str] | bool = True) -> list[Tool]:
    """Every catalogued tool (built-in, web, plugins, memory, MCP), or those named in a comma-separated list."""
    catalog = tool_catalog(memory=memory, mcp=mcp)
    for problem in catalog.errors:
        print(f"sparrow: warning: {problem}", file=sys.stderr)
    if not names:
        return list(catalog.tools)
    try:
        return catalog.get([n.strip() for n in names.split(",") if n.strip()])
    except ValueError as exc:
        raise CliError(str(exc)) from None


def agent_from_args(args: argparse.Namespace, config: SessionConfig | None = None) -> Agent:
    """An Agent from CLI options; a session's configuration, if given, fills in the options left out."""
    settings = AgentSettings.from_record(config.settings) if config else AgentSettings()
    names = ("max_steps", "time_limit", "tool_timeout", "temperature", "max_tokens", "repeat_policy")
    overrides = {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}
    if getattr(args, "yes", False):
        overrides["require_approval"] = False
    trusted = {name.strip(): False for name in (getattr(args, "trust", None) or "").split(",") if name.strip()}
    overrides["tool_approval"] = {**app_defaults(), **settings.tool_approval, **trusted}
    protocol = getattr(args, "protocol", None) or (protocol_from_config(config) if config else "react")
    try:
        model = model_from_args(args, config.model if config else None)
        # Long-term memory belongs to sessions: a run that is not recorded gets no remember/recall.
        memory = not getattr(args, "no_save", False)
        tools = select_tools(getattr(args, "tools", None), memory=memory, mcp=mcp_source(args))
        return Agent(model, tools, protocol=protocol, settings=settings, approvals=approvals_of(args), **overrides)
    except ValueError as exc:
        raise CliError(settings_problem(exc)) from None


def approvals_of(args: argparse.Namespace) -> Approvals:
    """The mailbox for this command's approval decisions (one per command line)."""
    if not isinstance(getattr(args, "approvals", None), Approvals):
        args.approvals = Approvals()
    return args.approvals
