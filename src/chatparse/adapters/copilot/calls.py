"""Tool calls: the response parts that tell of them, and the rounds the model sent.

A call is told of in up to three places: ``prepareToolInvocation`` announces it,
``toolInvocationSerialized`` records what VS Code ran and showed, and the request's
``result.metadata.toolCallRounds`` holds what the model actually sent, with the results in
``toolCallResults``.
"""

from __future__ import annotations

from typing import Any, Final

from chatparse.adapter import Ledger, as_text, dig
from chatparse.adapters.copilot.drafts import MessageDraft, ToolCallDraft
from chatparse.decoders import value as jsonvalue

__all__ = [
    "fill_from_rounds",
    "prepare_tool",
    "result_text",
    "sent_call",
    "tool_invocation",
    "uri_path",
]

# VS Code's own tools that run inside another tool's edit; the model never called them, so they
# have no entry in ``toolCallRounds``.
_INTERNAL_TOOL_SUFFIX: Final = "_internal"
# Copilot suffixes the model's call id with ``__vscode-<n>`` in toolCallRounds.
_ROUND_ID_SEPARATOR: Final = "__vscode-"
# Where a terminal call's command line is, most edited first.
_COMMAND_LINES: Final = ("userEdited", "toolEdited", "original")


def prepare_tool(answer: MessageDraft, part: dict[str, Any]) -> bool:
    """``prepareToolInvocation`` announces a call; the invocation that follows completes it."""
    name = as_text(part.get("toolName"))
    if name is None:
        return False
    answer.calls.append(ToolCallDraft(id=None, name=name, announced=True))
    return True


def tool_invocation(answer: MessageDraft, part: dict[str, Any]) -> bool:
    """``toolInvocationSerialized``: the call VS Code ran, joined to its announcement."""
    name = as_text(part.get("toolId"))
    if name is None:
        return False
    call = next((c for c in answer.calls if c.announced and not c.invoked and c.name == name), None)
    if call is None:
        call = ToolCallDraft(id=None, name=name)
        answer.calls.append(call)
    call.invoked = True
    call.id = as_text(part.get("toolCallId"))
    if call.id is not None:
        call.keys.add(call.id)
    _read_result_details(call, part.get("resultDetails"))
    _read_tool_specific(call, part.get("toolSpecificData"))
    return True


def _read_result_details(call: ToolCallDraft, details: object) -> None:
    if isinstance(details, dict):
        call.input = _arguments(details.get("input"))
        call.output = _output_text(details.get("output"))
        if isinstance(details.get("isError"), bool):
            call.is_error = details["isError"]
    elif isinstance(details, list):  # a list of URIs or locations the tool found
        found = [
            uri_path(d.get("uri") if "uri" in d else d) for d in details if isinstance(d, dict)
        ]
        call.output = "\n".join(p for p in found if p) or None


def _read_tool_specific(call: ToolCallDraft, data: object) -> None:
    if not isinstance(data, dict):
        return
    if data.get("kind") == "terminal":
        _read_terminal(call, data)
    elif data.get("kind") == "input" and call.input is None:
        call.input = data.get("rawInput")


def _read_terminal(call: ToolCallDraft, data: dict[str, Any]) -> None:
    """A terminal call: its command line, exit code and output, where the parts lacked them."""
    line = data.get("commandLine")
    command = None
    if isinstance(line, dict):
        command = next((line[k] for k in _COMMAND_LINES if isinstance(line.get(k), str)), None)
    if call.input is None and command is not None:
        call.input = {"command": command}
    exit_code = dig(data, "terminalCommandState", "exitCode")
    if isinstance(exit_code, int) and not isinstance(exit_code, bool) and call.is_error is None:
        call.is_error = exit_code != 0
    if call.output is None:
        call.output = as_text(dig(data, "terminalCommandOutput", "text"))


def fill_from_rounds(answer: MessageDraft, metadata: object, ledger: Ledger) -> None:
    """Fill tool inputs (and outputs) from ``result.metadata.toolCallRounds``.

    The rounds list what the model sent: ``{name, arguments, id}`` per call, with results in
    ``toolCallResults`` under the same id. A part and a round call are the same call when their
    ids match (the round id may carry a ``__vscode-<n>`` suffix); otherwise, when the remaining
    parts (VS Code's ``*_internal`` tools left out) and round calls are as many, in order. A
    response whose parts name no tool at all takes its calls from the rounds.
    """
    sent = _round_calls(metadata)
    if not sent:
        return
    if not answer.calls:
        answer.calls = sent
        return
    unpaired: list[ToolCallDraft] = []
    for call in answer.calls:
        match = next((s for s in sent if s.keys & call.keys), None)
        if match is not None:
            call.fill(match)
            sent.remove(match)
        elif call.invoked and not call.name.endswith(_INTERNAL_TOOL_SUFFIX):
            unpaired.append(call)
    if len(unpaired) == len(sent):
        for call, match in zip(unpaired, sent, strict=True):
            call.fill(match)
    elif sent:
        ledger.warn(
            f"request {answer.request_id}: {len(unpaired)} tool call(s) could not be paired "
            f"with {len(sent)} in toolCallRounds; their inputs are left empty"
        )


def _round_calls(metadata: object) -> list[ToolCallDraft]:
    """The calls the model sent, in order, from every round of ``toolCallRounds``."""
    rounds = dig(metadata, "toolCallRounds")
    results = dig(metadata, "toolCallResults")
    sent: list[ToolCallDraft] = []
    for round_ in rounds if isinstance(rounds, list) else ():
        for raw in dig(round_, "toolCalls") or ():
            name, ident = as_text(dig(raw, "name")), as_text(dig(raw, "id"))
            if name is None:
                continue
            call = sent_call(ident, name, dig(raw, "arguments"))
            if ident is not None:
                call.keys = {ident, ident.split(_ROUND_ID_SEPARATOR)[0]}
                call.output = result_text(dig(results, ident))
            sent.append(call)
    return sent


def sent_call(ident: str | None, name: str, arguments: object) -> ToolCallDraft:
    """A call as the model sent it; ``arguments`` in JSON text are decoded."""
    return ToolCallDraft(id=ident, name=name, input=_arguments(arguments))


def uri_path(uri: object) -> str | None:
    """The path of a serialized URI (``{"$mid": 1, "path", "fsPath", "external", ...}``)."""
    if isinstance(uri, str):
        return uri
    if isinstance(uri, dict):
        for key in ("fsPath", "path", "external"):
            if isinstance(uri.get(key), str) and uri[key]:
                return str(uri[key])
    return None


def _output_text(output: object) -> str | None:
    """The text of a tool's ``resultDetails.output``: a string, or text items' values."""
    if isinstance(output, str):
        return output
    if not isinstance(output, list):
        return None
    texts = [
        item["value"]
        for item in output
        if isinstance(item, dict)
        and isinstance(item.get("value"), str)
        and item.get("isText", True)
    ]
    return "\n".join(texts) if texts else None


def result_text(result: object) -> str | None:
    """The text of a tool result from ``toolCallResults`` or a transcript event.

    Copilot stores results as ``{"content": [...]}`` whose items are text parts (``value``
    strings) or rendered prompt trees (``value.node``), whose text leaves are joined here.
    """
    if isinstance(result, str):
        return result
    content = dig(result, "content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    pieces: list[str] = []
    for item in content:
        value = dig(item, "value")
        if isinstance(value, str):
            pieces.append(value)
        elif isinstance(dig(value, "node"), dict):
            pieces.append(_tree_text(dig(value, "node")))
        elif isinstance(dig(item, "text"), str):
            pieces.append(str(dig(item, "text")))
    text = "".join(pieces)
    return text or None


def _tree_text(root: object) -> str:
    """The text leaves of a rendered prompt tree, in order, iteratively (trees can be deep)."""
    pieces: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        text = node.get("text")
        if isinstance(text, str):
            if node.get("lineBreakBefore") is True and pieces and not pieces[-1].endswith("\n"):
                pieces.append("\n")
            pieces.append(text)
        children = node.get("children")
        if isinstance(children, list):
            stack.extend(reversed(children))
    return "".join(pieces)


def _arguments(value: object) -> Any:
    """Tool arguments: JSON text decoded (the text itself when it is not JSON), else as they are."""
    if not isinstance(value, str):
        return value
    if not value.strip():
        return None
    decoded = jsonvalue.decode(value)
    return value if isinstance(decoded, jsonvalue.Invalid) else decoded
