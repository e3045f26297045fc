// Writing a file the user named (export --out): a regular file is replaced atomically, a symlink
// is written through (the link stays), a device or pipe is written to and never replaced, a
// folder is refused; failures name the path. The temp file an export killed with kill -9 left is
// removed by the next export to that target, while one a running export writes is left alone.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
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

/** A Node process that writes the temp files of an export to each of `targets`, as output-file.ts names them. */
function exportWriter(targets: readonly string[], then: "die" | "wait"): string[] {
  const module = pathToFileURL(
    path.resolve(import.meta.dirname, "../../../main/library/output-temp.ts"),
  ).href;
  return [
    "--input-type=module",
    "-e",
    `const { tempPathFor } = await import(${JSON.stringify(module)});
     const fs = await import("node:fs");
     for (const target of ${JSON.stringify(targets)}) {
       const temp = tempPathFor(target);
       fs.writeFileSync(temp, "half an export");
       console.log(temp);
     }
     ${then === "die" ? 'process.kill(process.pid, "SIGKILL");' : "setInterval(() => {}, 1000);"}`,
  ];
}

describe("temp files of an export killed before its rename", () => {
  it("the next export to that target removes them; other files that look alike stay", () => {
    const target = path.join(tmp.dir, "session.jsonl");
    const other = path.join(tmp.dir, "other.jsonl");
    fs.writeFileSync(target, "old\n");
    // kill -9 in the middle of exporting to both targets: their temp files stay behind.
    const killed = spawnSync(process.execPath, exportWriter([target, other], "die"), { encoding: "utf8" });
    expect(killed.signal).toBe("SIGKILL");
    const [stale, staleOther] = killed.stdout
      .trim()
      .split("\n")
      .map((temp) => path.basename(temp));
    expect(stale).toMatch(
      new RegExp(`^\\.session\\.jsonl\\.canopy-[0-9a-f]{8}-${killed.pid}-[0-9a-f]{8}\\.tmp$`),
    );
    // Named alike but not certainly Canopy's for this target and host: another host's temp file
    // (its pids mean nothing here), a file of the user's, the name this took before the host tag.
    const hostTag = (stale as string).split(".canopy-")[1]?.slice(0, 8) ?? "";
    const otherHost = (stale as string).replace(
      `.canopy-${hostTag}-`,
      `.canopy-${hostTag === "00000000" ? "11111111" : "00000000"}-`,
    );
    const alike = [
      otherHost,
      ".session.jsonl.canopy-notes.tmp",
      `.session.jsonl.${killed.pid}.1767225600000.tmp`,
    ];
    for (const name of alike) fs.writeFileSync(path.join(tmp.dir, name), "not to be removed");

    writeOutputFile(target, "new\n", "x.jsonl");
    expect(fs.readFileSync(target, "utf8")).toBe("new\n");
    expect(fs.readdirSync(tmp.dir).sort()).toEqual([...alike, staleOther, "session.jsonl"].sort());
    // The other target's own next export removes its temp file.
    writeOutputFile(other, "other\n", "x.jsonl");
    expect(fs.readdirSync(tmp.dir).sort()).toEqual([...alike, "other.jsonl", "session.jsonl"].sort());
  });

  it("never touches the temp file of an export that is still running", async () => {
    const target = path.join(tmp.dir, "session.jsonl");
    const writer = spawn(process.execPath, exportWriter([target], "wait"));
    const exited = new Promise((resolve) => writer.on("exit", resolve));
    try {
      const temp = await new Promise<string>((resolve, reject) => {
        writer.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString("utf8").trim()));
        writer.once("error", reject);
      });
      writeOutputFile(target, "mine\n", "x.jsonl");
      expect(fs.readFileSync(temp, "utf8")).toBe("half an export");
      expect(fs.readFileSync(target, "utf8")).toBe("mine\n");

      writer.kill("SIGKILL");
      await exited;
      writeOutputFile(target, "again\n", "x.jsonl");
      expect(fs.readdirSync(tmp.dir)).toEqual(["session.jsonl"]);
    } finally {
      writer.kill("SIGKILL");
    }
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
