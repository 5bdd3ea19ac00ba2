"""Loading a user's own tools: module paths, files, entry points (a real dist-info on sys.path), and errors."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.tools import builtin_tools, calculator
from agent_core.tools.plugins import (
    PluginError,
    load_plugins,
    modules_from_env,
    tools_from_module,
    tools_from_object,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

TOOL_MODULE = '''
from agent_core.tools import tool


@tool
def shout(text: str) -> str:
    """Repeat a text in capitals.

    Args:
        text: The text to shout.
    """
    return text.upper() + "!"


@tool(needs_approval=True)
def whisper(text: str) -> str:
    """Repeat a text in lower case.

    Args:
        text: The text to whisper.
    """
    return text.lower()


def make_tools():
    return [shout]


def helper(x):
    return x
'''


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path for throw-away modules; they are forgotten after the test."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def write(directory: Path, name: str, source: str) -> None:
    (directory / f"{name}.py").write_text(textwrap.dedent(source))


def test_example_module_loads_by_path_and_its_tools_work() -> None:
    tools = tools_from_module(str(EXAMPLES / "my_tools.py"))
    assert [t.name for t in tools] == ["convert_units", "word_count"]
    convert, count = tools
    assert convert.invoke({"value": 10, "from_unit": "km", "to_unit": "mi"}).content == "10 km = 6.21371 mi"
    assert convert.invoke({"value": 100, "from_unit": "celsius", "to_unit": "F"}).content == "100 C = 212 F"
    assert count.invoke({"text": "One two three. Four five!"}).details == {"words": 5, "sentences": 2, "characters": 25}


def test_example_module_loads_by_name_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.delitem(sys.modules, "my_tools", raising=False)
    monkeypatch.setenv("SPARROW_TOOLS", " my_tools , ")
    assert modules_from_env() == ["my_tools"]
    loaded = load_plugins(entry_points=False)
    assert ([t.name for t in loaded.tools], loaded.errors) == (["convert_units", "word_count"], ())
    assert loaded.origins == {"convert_units": "module my_tools", "word_count": "module my_tools"}
    monkeypatch.delitem(sys.modules, "my_tools", raising=False)


def test_every_public_tool_of_a_module_in_definition_order(plugin_dir: Path) -> None:
    write(plugin_dir, "loud_tools", TOOL_MODULE + "\n_private = shout\nalias = shout\n")
    tools = tools_from_module("loud_tools")
    assert [(t.name, t.needs_approval) for t in tools] == [("shout", False), ("whisper", True)]


def test_a_tools_list_chooses_exactly(plugin_dir: Path) -> None:
    write(plugin_dir, "listed_tools", TOOL_MODULE + "\nTOOLS = [whisper]\n")
    assert [t.name for t in tools_from_module("listed_tools")] == ["whisper"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def plain(x):\n    return x\n", "module bad_mod: no tools found; decorate functions with @tool or list them"),
        (TOOL_MODULE + "\nTOOLS = [shout, helper]\n", "module bad_mod (TOOLS): item 1 is function <function helper"),
        (TOOL_MODULE + "\nTOOLS = []\n", "module bad_mod (TOOLS): the list of tools is empty"),
        ("raise RuntimeError('config missing')\n", "module bad_mod: cannot import it (RuntimeError: config missing)"),
        (
            "import not_installed_dependency_xyz\n",
            "module bad_mod: cannot import it (ModuleNotFoundError: No module named 'not_installed_dependency_xyz')",
        ),
        ("def broken(:\n", "module bad_mod: cannot import it (SyntaxError: "),
        (
            "from agent_core.tools import tool\n\n@tool\ndef nodoc(x: int) -> int:\n    return x\n",
            "module bad_mod: cannot import it (ToolDefinitionError: tool 'nodoc' needs a description",
        ),
    ],
)
def test_module_problems_name_the_module(plugin_dir: Path, source: str, message: str) -> None:
    write(plugin_dir, "bad_mod", source)
    with pytest.raises(PluginError) as caught:
        tools_from_module("bad_mod")
    assert str(caught.value).startswith(message)


def test_missing_module_and_missing_file() -> None:
    with pytest.raises(PluginError, match=r"^module no_such_module_xyz: cannot import it \(ModuleNotFoundError"):
        tools_from_module("no_such_module_xyz")
    with pytest.raises(PluginError, match=r"^module /nowhere/tools\.py: no such file$"):
        tools_from_module("/nowhere/tools.py")


def test_objects_that_are_not_tools() -> None:
    assert tools_from_object(calculator, "x") == [calculator]
    assert tools_from_object(lambda: [calculator], "x") == [calculator]
    with pytest.raises(PluginError, match=r"^x: the tool factory raised ValueError: no$"):
        tools_from_object(lambda: (_ for _ in ()).throw(ValueError("no")), "x")
    with pytest.raises(PluginError, match=r"^x: the tool factory returned str, not a list of tools$"):
        tools_from_object(lambda: "tool", "x")
    with pytest.raises(PluginError, match=r"^x: int is not a tool, a list of tools or a module$"):
        tools_from_object(42, "x")


def test_bad_sources_are_reported_and_good_ones_still_load(plugin_dir: Path) -> None:
    write(plugin_dir, "good_tools", TOOL_MODULE)
    write(plugin_dir, "clash_tools", TOOL_MODULE.replace("def whisper", "def murmur"))
    write(plugin_dir, "builtin_clash", TOOL_MODULE.replace("def shout", "def calculator"))
    write(plugin_dir, "reuses_builtin", "from agent_core.tools import calculator\n")
    loaded = load_plugins(
        ["good_tools", "missing_tools_xyz", "clash_tools", "builtin_clash", "reuses_builtin"],
        entry_points=False,
        taken=builtin_tools(),
    )
    assert [t.name for t in loaded.tools] == ["shout", "whisper"]
    assert loaded.errors == (
        "module missing_tools_xyz: cannot import it (ModuleNotFoundError: No module named 'missing_tools_xyz')",
        "module clash_tools: a tool named 'shout' already comes from module good_tools",
        "module builtin_clash: a tool named 'calculator' already comes from the built-in tools",
    )
    with pytest.raises(
        PluginError, match=r"^module missing_tools_xyz: .*; module clash_tools: .*; module builtin_clash"
    ):
        loaded.raise_errors()


def test_entry_points_from_an_installed_distribution(plugin_dir: Path) -> None:
    write(plugin_dir, "ep_tools", TOOL_MODULE)
    write(plugin_dir, "ep_extra", TOOL_MODULE.replace("def shout", "def yell").replace("def whisper", "def hush"))
    info = plugin_dir / "sparrow_demo_tools-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sparrow-demo-tools\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[sparrow.tools]\n"
        "a_module = ep_tools\n"
        "b_single = ep_extra:yell\n"
        "c_factory = ep_tools:make_tools\n"
        "d_broken = ep_missing_module_xyz\n"
        "e_not_tool = ep_tools:helper\n"
    )
    loaded = load_plugins([], taken=[calculator])
    assert [t.name for t in loaded.tools] == ["shout", "whisper", "yell"]
    assert loaded.origins["yell"] == "entry point b_single (ep_extra:yell) of sparrow-demo-tools 1.0"
    assert loaded.errors[0] == (
        "entry point d_broken (ep_missing_module_xyz) of sparrow-demo-tools 1.0: cannot load it "
        "(ModuleNotFoundError: No module named 'ep_missing_module_xyz')"
    )
    assert loaded.errors[1].startswith(
        "entry point e_not_tool (ep_tools:helper) of sparrow-demo-tools 1.0: the tool factory raised TypeError"
    )
    assert len(loaded.errors) == 2


def test_entry_points_can_be_turned_off(plugin_dir: Path) -> None:
    write(plugin_dir, "ep_off", TOOL_MODULE)
    info = plugin_dir / "sparrow_off-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sparrow-off\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[sparrow.tools]\noff = ep_off\n")
    assert load_plugins([], entry_points=False).tools == ()
    assert [t.name for t in load_plugins([]).tools] == ["shout", "whisper"]
