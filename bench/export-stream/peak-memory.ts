/**
 * Preloaded (`node --import`) into each child of the export bench: on exit it prints the
 * process's peak resident memory (the kernel's maxRSS) and the largest heap seen by a 10 ms
 * sampler, as one `PEAK rss=<bytes> heap=<bytes>` line on stderr. SIGTERM exits normally so the
 * line is printed for a server stopped by the bench too.
 */
import fs from "node:fs";

let heapPeak = 0;
const sample = () => {
  const m = process.memoryUsage();
  heapPeak = Math.max(heapPeak, m.heapUsed + m.external + m.arrayBuffers);
};
setInterval(sample, 10).unref();
process.on("SIGTERM", () => process.exit(0));
process.on("exit", () => {
  sample();
  fs.writeSync(2, `\nPEAK rss=${process.resourceUsage().maxRSS * 1024} heap=${heapPeak}\n`);
});
