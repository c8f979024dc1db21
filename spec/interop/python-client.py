# The official Python SDK client against a hubmcp server: one streamable-HTTP session (with its
# standalone GET stream) and one legacy SSE session, each listing tools and calling one.
# Warnings the SDK logs go to stderr, where the spec reads them.
import logging
import sys

import anyio
from mcp import ClientSession, types
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")


async def exercise(read, write, label):
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ServerNotification) and isinstance(message, types.ToolListChangedNotification):
            changed.set()
        elif getattr(message, "method", None) == "notifications/tools/list_changed":
            changed.set()

    async with ClientSession(read, write, message_handler=on_message) as session:
        await session.initialize()
        result = await session.call_tool("echo", {"text": label})
        # A list change travels on the session's standalone stream (GET /mcp) or the /sse
        # stream: once one arrives, that stream's opening events have been read too.
        for attempt in range(50):
            await session.call_tool("grow", {"n": attempt})
            with anyio.move_on_after(0.5):
                await changed.wait()
            if changed.is_set():
                break
        tools = await session.list_tools()
        print(label, changed.is_set(), "echo" in [t.name for t in tools.tools], result.content[0].text, flush=True)


async def main(base):
    async with streamable_http_client(base + "mcp") as streams:
        await exercise(streams[0], streams[1], "streamable")
    async with sse_client(base + "sse") as streams:
        await exercise(streams[0], streams[1], "sse")


anyio.run(main, sys.argv[1])
