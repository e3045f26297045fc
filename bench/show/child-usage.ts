/**
 * Preloaded (`node --import`) into each child of the show bench: on exit it prints the process's
 * peak resident memory (maxRSS) and the CPU time it used (user + system), as one
 * `USAGE rss=<bytes> cpu=<ms>` line on stderr. CPU time is what a busy shared machine distorts least.
 */
import fs from "node:fs";

process.on("exit", () => {
  const usage = process.resourceUsage();
  const cpuMs = Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000);
  fs.writeSync(2, `\nUSAGE rss=${usage.maxRSS * 1024} cpu=${cpuMs}\n`);
});
