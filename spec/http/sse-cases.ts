// Event streams and the events the WHATWG rules make of them, shared by the specs of every
// parser in the tree (lib/http/sse-reader.ts and the browser console's copy), so the copies
// cannot drift apart. Each event: `event` ("message" by default), `data`, and `id`, the last
// event id string at dispatch ("" when none was set).

export interface SseCase {
  name: string;
  stream: string;
  events: Array<{ event: string; data: string; id: string }>;
}

export const SSE_CASES: SseCase[] = [
  {
    name: "the tool server's endpoint event: id and retry between event and data",
    stream: "event: endpoint\nid: g0.1\nretry: 3000\ndata: /mcp?session_id=abc\n\n",
    events: [{ event: "endpoint", data: "/mcp?session_id=abc", id: "g0.1" }],
  },
  {
    name: "fields in any order, data first",
    stream: "data: /mcp\nretry: 10\nid: 9\nevent: endpoint\n\n",
    events: [{ event: "endpoint", data: "/mcp", id: "9" }],
  },
  {
    name: "comments anywhere, multi-line data joined with LF",
    stream: ': open\n\ndata: {"a":\n: between\ndata: 1}\n\n',
    events: [{ event: "message", data: '{"a":\n1}', id: "" }],
  },
  {
    name: "CRLF, lone CR and LF line ends, mixed",
    stream: "id: 7\r\nevent: a\r\ndata: x\r\n\r\ndata: y\rdata: z\r\rdata: w\n\n",
    events: [
      { event: "a", data: "x", id: "7" },
      { event: "message", data: "y\nz", id: "7" },
      { event: "message", data: "w", id: "7" },
    ],
  },
  {
    name: "one space after the colon is dropped, no more; a field with no colon has an empty value",
    stream: "data:a\ndata:  b\ndata\n\n",
    events: [{ event: "message", data: "a\n b\n", id: "" }],
  },
  {
    name: "an empty data line still makes an event",
    stream: "data:\n\n",
    events: [{ event: "message", data: "", id: "" }],
  },
  {
    name: "no data: no event, and its event name does not leak into the next",
    stream: "event: lonely\n\nid: 3\n\ndata: next\n\n",
    events: [{ event: "message", data: "next", id: "3" }],
  },
  {
    name: "an id with NUL is ignored; an empty id resets; unknown fields and bad retry are ignored",
    stream: "id: 1\ndata: a\n\nid: 2\0x\nretry: soon\nfoo: bar\ndata: b\n\nid\ndata: c\n\n",
    events: [
      { event: "message", data: "a", id: "1" },
      { event: "message", data: "b", id: "1" },
      { event: "message", data: "c", id: "" },
    ],
  },
  {
    name: "a leading BOM is dropped once",
    stream: "\uFEFFdata: x\n\n",
    events: [{ event: "message", data: "x", id: "" }],
  },
  {
    name: "an unterminated event at the end is not dispatched",
    stream: "data: done\n\ndata: cut",
    events: [{ event: "message", data: "done", id: "" }],
  },
  {
    name: "non-ASCII text passes unchanged",
    stream: 'data: {"t":"héllo → 世界 🧪"}\n\n',
    events: [{ event: "message", data: '{"t":"héllo → 世界 🧪"}', id: "" }],
  },
];
