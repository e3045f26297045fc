// Writing a file the user named (export --out): a regular file is replaced atomically, a symlink
// is written through (the link stays), a device or pipe is written to and never replaced, a
// folder is refused; failures name the path.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeOutputFile } from "../../../main/library/output-file.ts";
import { StoreError } from "../../../main/store/errors.ts";
import { runCliCaptured } from "../../helpers/cli.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { makeTempDir } from "../store/helpers.ts";

let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  tmp = makeTempDir();
});
afterEach(() => tmp.cleanup());

function failure(run: () => unknown): StoreError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error("it did not fail");
}

describe("writeOutputFile", () => {
  it("creates or replaces a regular file, leaving no temp file behind", () => {
    const file = path.join(tmp.dir, "out", "session.jsonl");
    expect(writeOutputFile(file, "one\n", "x.jsonl")).toBe(file);
    expect(writeOutputFile(file, "two\n", "x.jsonl")).toBe(file);
    expect(fs.readFileSync(file, "utf8")).toBe("two\n");
    expect(fs.readdirSync(path.dirname(file))).toEqual(["session.jsonl"]);
    // A file replaced keeps its permissions.
    fs.chmodSync(file, 0o600);
    writeOutputFile(file, "three\n", "x.jsonl");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses a folder, suggesting a file in it, and writes nothing there", () => {
    const error = failure(() => writeOutputFile(tmp.dir, "text\n", "tree-02.jsonl"));
    expect(error.message).toBe(
      `${tmp.dir} is a folder; give the file to write (for example ${path.join(tmp.dir, "tree-02.jsonl")})`,
    );
    expect(fs.readdirSync(tmp.dir)).toEqual([]);
  });

  it("writes through a symlink: the link stays, the file it points to gets the text", () => {
    const target = path.join(tmp.dir, "real.jsonl");
    fs.writeFileSync(target, "old\n");
    const link = path.join(tmp.dir, "link.jsonl");
    fs.symlinkSync(target, link);
    writeOutputFile(link, "new\n", "x.jsonl");
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, "utf8")).toBe("new\n");

    const dangling = path.join(tmp.dir, "dangling.jsonl");
    fs.symlinkSync(path.join(tmp.dir, "created.jsonl"), dangling);
    writeOutputFile(dangling, "created\n", "x.jsonl");
    expect(fs.lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(tmp.dir, "created.jsonl"), "utf8")).toBe("created\n");
  });

  it("writes into a named pipe and leaves it a pipe", async () => {
    const pipe = path.join(tmp.dir, "pipe");
    expect(spawnSync("mkfifo", [pipe]).status).toBe(0);
    const reader = spawn("cat", [pipe]);
    let read = "";
    reader.stdout.on("data", (chunk: Buffer) => {
      read += chunk.toString("utf8");
    });
    const ended = new Promise((resolve) => reader.on("close", resolve));
    writeOutputFile(pipe, "through the pipe\n", "x.jsonl");
    await ended;
    expect(read).toBe("through the pipe\n");
    expect(fs.statSync(pipe).isFIFO()).toBe(true);
  });

  it("says the disk is full (/dev/full) and leaves the device as it was", () => {
    const error = failure(() => writeOutputFile("/dev/full", "text\n", "x.jsonl"));
    expect(error.message).toBe("Could not write /dev/full: the disk is full");
    expect(fs.statSync("/dev/full").isCharacterDevice()).toBe(true);
  });

  it("says so when a part of the path is a file", () => {
    const file = path.join(tmp.dir, "plain.txt");
    fs.writeFileSync(file, "x");
    const error = failure(() => writeOutputFile(path.join(file, "out.jsonl"), "text\n", "x.jsonl"));
    expect(error.message).toBe(
      `Could not write ${path.join(file, "out.jsonl")}: a part of that path is a file`,
    );
  });
});

describe("canopy export --out", () => {
  it("refuses a folder in one line, exit 1", async () => {
    const db = path.join(tmp.dir, "library.db");
    const out = path.join(tmp.dir, "exports");
    fs.mkdirSync(out);
    const run = await runCliCaptured(["export", fixturePath("tree-00.jsonl"), "--out", out, "--db", db]);
    expect(run.code).toBe(1);
    expect(run.err.trim().split("\n")).toEqual([
      `canopy: error: ${out} is a folder; give the file to write (for example ${path.join(out, "tree-00.jsonl")})`,
    ]);
    expect(fs.readdirSync(out)).toEqual([]);
  });
});
