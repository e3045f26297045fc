// A chat turn from an oh-my-pi session whose images were externalized to the agent's blob store
// (SPEC §1.7): the model receives the image bytes, as the agent sends them after loading the file,
// and `context --json` shows them so.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blobFoldersFor, resolveBlobImages } from "../../main/llm/blob-images.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { closeServedHarness, type Harness, startServedHarness } from "./pipelines/harness.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
const HEX = createHash("sha256").update(PNG).digest("hex");
const REF = `blob:sha256:${HEX}`;

let fake: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server: fake, h } = await startServedHarness({
    server: { defaultText: "I see it." },
    model: true,
    stream: true,
  }));
});

afterEach(() => closeServedHarness({ server: fake, h }));

/** `<agentDir>/sessions/--work--/s.jsonl` with a screenshot tool result stored as a blob ref. */
function writeOmpSession(agentDir: string): string {
  const folder = path.join(agentDir, "sessions", "--work--");
  mkdirSync(folder, { recursive: true });
  const at = (s: number) => new Date(Date.UTC(2026, 1, 1, 10, 0, s)).toISOString();
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 };
  const lines = [
    { type: "session", version: 3, id: "0123456789abcdef", timestamp: at(0), cwd: "/work", title: "Shots" },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: at(1),
      message: { role: "user", content: [{ type: "text", text: "Take a screenshot." }], timestamp: 1 },
    },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: at(2),
      message: {
        role: "assistant",
        content: [{ type: "toolCall", id: "call_1", name: "screenshot", arguments: {} }],
        api: "openai-completions",
        provider: "openai",
        model: "gpt-test",
        usage,
        stopReason: "toolUse",
        timestamp: 2,
      },
    },
    {
      type: "message",
      id: "t1",
      parentId: "a1",
      timestamp: at(3),
      message: {
        role: "toolResult",
        toolCallId: "call_1",
        toolName: "screenshot",
        content: [
          { type: "text", text: "Screenshot taken." },
          { type: "image", data: REF, mimeType: "image/png" },
        ],
        isError: false,
        timestamp: 3,
      },
    },
  ];
  const file = path.join(folder, "2026-02-01T10-00-00-000Z_0123456789abcdef.jsonl");
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

describe("blob-stored images", () => {
  it("a chat turn sends the image bytes from <agentDir>/blobs, not the ref", async () => {
    const agentDir = path.join(h.dir, "agent");
    const file = writeOmpSession(agentDir);
    mkdirSync(path.join(agentDir, "blobs"), { recursive: true });
    writeFileSync(path.join(agentDir, "blobs", HEX), PNG);
    const imported = await h.api.call("library:import", { path: file });
    if (!imported.ok) throw new Error(imported.error.message);
    const sessionId = imported.value.files[0]?.sessionId as string;

    const sent = await h.api.call("chat:send", { sessionId, text: "What does it show?" });
    expect(sent.ok).toBe(true);
    const request = fake.requests.find((r) => r.path === "/v1/chat/completions");
    const body = JSON.stringify(request?.body);
    expect(body).toContain(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(body).not.toContain("blob:sha256:");
  });

  it("with images.blockImages on, the request carries the notice instead of the image, as context:get reports", async () => {
    const agentDir = path.join(h.dir, "agent");
    const file = writeOmpSession(agentDir);
    mkdirSync(path.join(agentDir, "blobs"), { recursive: true });
    writeFileSync(path.join(agentDir, "blobs", HEX), PNG);
    const imported = await h.api.call("library:import", { path: file });
    if (!imported.ok) throw new Error(imported.error.message);
    const sessionId = imported.value.files[0]?.sessionId as string;
    expect((await h.api.call("settings:set", { key: "images.blockImages", value: true })).ok).toBe(true);

    const view = await h.api.call("context:get", { sessionId });
    if (!view.ok) throw new Error(view.error.message);
    expect(view.value.request.changes.at(-1)).toEqual([{ kind: "images-blocked", count: 1 }]);
    const sent = await h.api.call("chat:send", { sessionId, text: "What does it show?" });
    expect(sent.ok).toBe(true);
    const request = fake.requests.find((r) => r.path === "/v1/chat/completions");
    const body = JSON.stringify(request?.body);
    expect(body).toContain("Screenshot taken.\\nImage reading is disabled.");
    expect(body).not.toContain("image_url");
  });

  it("context --json gives the image data as the agent loads it; the page's view keeps the ref", async () => {
    const agentDir = path.join(h.dir, "agent");
    const file = writeOmpSession(agentDir);
    mkdirSync(path.join(agentDir, "blobs"), { recursive: true });
    writeFileSync(path.join(agentDir, "blobs", HEX), PNG);
    const run = await runCliCaptured(["context", file, "--json", "--db", path.join(h.dir, "cli.db")]);
    expect(run.code).toBe(0);
    const messages = JSON.parse(run.out) as { role: string; content: { type: string; data?: string }[] }[];
    const image = messages.at(-1)?.content.find((block) => block.type === "image");
    expect(image?.data).toBe(PNG.toString("base64"));

    const imported = await h.api.call("library:import", { path: file });
    if (!imported.ok) throw new Error(imported.error.message);
    const view = await h.api.call("context:get", { sessionId: imported.value.files[0]?.sessionId as string });
    if (!view.ok) throw new Error(view.error.message);
    expect(JSON.stringify(view.value.messages)).toContain(REF);
  });

  it("context:get for the page keeps the refs and tells each one's size in the blob store, null when missing", async () => {
    const agentDir = path.join(h.dir, "agent");
    const file = writeOmpSession(agentDir);
    const imported = await h.api.call("library:import", { path: file });
    if (!imported.ok) throw new Error(imported.error.message);
    const sessionId = imported.value.files[0]?.sessionId as string;
    const before = await h.api.call("context:get", { sessionId, agentMessages: false, holeLongTexts: true });
    if (!before.ok) throw new Error(before.error.message);
    expect(before.value.blobImages).toEqual({ [REF]: null });

    mkdirSync(path.join(agentDir, "blobs"), { recursive: true });
    writeFileSync(path.join(agentDir, "blobs", HEX), PNG);
    const after = await h.api.call("context:get", { sessionId, agentMessages: false, holeLongTexts: true });
    if (!after.ok) throw new Error(after.error.message);
    expect(after.value.blobImages).toEqual({ [REF]: PNG.length });
    expect(JSON.stringify(after.value.messages)).toContain(REF);
  });

  it("a missing blob keeps its ref; refs that are not sha256 hex never reach the file system", () => {
    const folders = blobFoldersFor(path.join(h.dir, "agent", "sessions", "--w--", "s.jsonl"));
    expect(folders).toEqual([path.join(h.dir, "agent", "blobs")]);
    const image = { type: "image" as const, data: REF, mimeType: "image/png" };
    const odd = { type: "image" as const, data: "blob:sha256:../../etc/passwd", mimeType: "image/png" };
    const messages = resolveBlobImages([{ role: "user", content: [image, odd], timestamp: 1 }], folders);
    expect(messages[0]?.content).toEqual([image, odd]);
  });
});
