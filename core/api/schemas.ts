/**
 * Input validation for every request channel (zod), checked at the edge before a handler runs.
 * The `satisfies` clause makes a missing channel, or a schema that disagrees with the contract,
 * a compile error.
 */
import { z } from "zod";
import { issueInWords } from "../settings/issue-words.ts";
import { type Channel, MAX_SEARCH_QUERY_CHARS, type RequestInput } from "./contract.ts";

const nonEmpty = z.string().trim().min(1);
const empty = z.object({}).strict();
const sessionId = nonEmpty.max(512);
const entryId = nonEmpty.max(512);
/** The most recent tokens a compaction may be asked to keep (`--keep-recent-tokens`). */
export const MAX_KEEP_RECENT_TOKENS = 10_000_000;
const keepTokens = z.number().int().min(1).max(MAX_KEEP_RECENT_TOKENS);
/** API-key names are environment-variable names (a model's `apiKeyEnv`). */
const secretName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "a key name looks like OPENAI_API_KEY");

/** A connection test's id, made by the window that starts it (settings:cancel-test-connection names it). */
const testId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "a test id is 1 to 100 letters, digits, - or _");

type SchemaFor<C extends Channel> = z.ZodType<RequestInput<C>>;

/** The most hits one `library:search` returns (`--limit` in the CLI). */
export const MAX_SEARCH_HITS = 1000;
/** Entries one session:entries call may ask for (a chat turn appends a handful). */
export const MAX_ENTRY_IDS = 10_000;

export const inputSchemas: { [C in Channel]: SchemaFor<C> } = {
  "library:list": z.object({ deleted: z.boolean().optional() }).strict(),
  "library:import": z.object({ path: nonEmpty }).strict(),
  "library:import-default-folders": empty as SchemaFor<"library:import-default-folders">,
  "library:cancel-import": empty as SchemaFor<"library:cancel-import">,
  "library:get-folders": empty as SchemaFor<"library:get-folders">,
  "library:set-folders": z
    .object({ folders: z.array(nonEmpty).max(100), expected: z.array(z.string()).max(100).optional() })
    .strict(),
  "library:search": z
    .object({
      query: z.string().max(MAX_SEARCH_QUERY_CHARS),
      limit: z.number().int().min(1).max(MAX_SEARCH_HITS).optional(),
      highlight: z.tuple([z.string().max(8), z.string().max(8)]).optional(),
    })
    .strict(),
  "library:delete": z.object({ sessionId }).strict(),
  "library:restore": z.object({ sessionId }).strict(),
  "library:keep-copy": z.object({ sessionId }).strict(),
  "session:get": z.object({ sessionId }).strict(),
  "session:entries": z.object({ sessionId, entryIds: z.array(entryId).max(MAX_ENTRY_IDS) }).strict(),
  "session:tree": z.object({ sessionId }).strict(),
  "session:tree-update": z.object({ sessionId, since: nonEmpty.max(200) }).strict(),
  "session:usage": z.object({ sessionId }).strict(),
  "session:set-view-leaf": z.object({ sessionId, leafId: entryId.nullable() }).strict(),
  "session:export": z
    .object({
      sessionId,
      leafId: entryId.nullable().optional(),
      outPath: nonEmpty.optional(),
      withoutArchived: z.boolean().optional(),
      originals: z.boolean().optional(),
      confirmLiveFolder: z.boolean().optional(),
    })
    .strict(),
  "session:choose-export-path": z.object({ sessionId }).strict(),
  "context:get": z
    .object({
      sessionId,
      leafId: entryId.nullable().optional(),
      blobImages: z.boolean().optional(),
      agentMessages: z.boolean().optional(),
      holeLongTexts: z.boolean().optional(),
      since: z.string().max(100).nullable().optional(),
    })
    .strict(),
  "compaction:preview": z
    .object({ sessionId, leafId: entryId.optional(), keepRecentTokens: keepTokens.optional() })
    .strict(),
  "compaction:run": z
    .object({
      sessionId,
      leafId: entryId.optional(),
      customInstructions: z.string().max(20_000).optional(),
      keepRecentTokens: keepTokens.optional(),
      shown: z.object({ leafId: entryId, firstKeptEntryId: entryId }).strict().optional(),
    })
    .strict(),
  "compaction:abort": z.object({ sessionId }).strict(),
  "navigation:preview": z.object({ sessionId, targetId: entryId }).strict(),
  "navigation:navigate": z
    .object({
      sessionId,
      targetId: entryId,
      summarize: z.boolean().optional(),
      customInstructions: z.string().max(20_000).optional(),
      replacePrompt: z.boolean().optional(),
    })
    .strict(),
  "navigation:abort": z.object({ sessionId }).strict(),
  "job:list": empty as SchemaFor<"job:list">,
  "pruning:preview": z
    .object({ sessionId, leafId: entryId.optional(), listCandidates: z.boolean().optional() })
    .strict(),
  "pruning:apply": z.object({ sessionId, leafId: entryId.optional() }).strict(),
  "pruning:restore": z.object({ sessionId }).strict(),
  "edits:edit-message": z
    .object({ sessionId, entryId, text: z.string().max(1_000_000).refine((text) => text.trim() !== "", "empty message") })
    .strict(),
  "edits:fork": z.object({ sessionId, entryId }).strict(),
  "edits:undo-summary": z.object({ sessionId, entryId }).strict(),
  "edits:rename": z.object({ sessionId, title: z.string().max(1000).nullable() }).strict(),
  "edits:label": z.object({ sessionId, targetId: entryId, label: z.string().max(1000).nullable() }).strict(),
  "edits:archive": z.object({ sessionId, entryId, confirm: z.boolean().optional() }).strict(),
  "edits:unarchive": z.object({ sessionId, entryId }).strict(),
  "edits:undo": z.object({ sessionId }).strict(),
  "edits:redo": z.object({ sessionId }).strict(),
  "settings:get": empty as SchemaFor<"settings:get">,
  "settings:set": z.object({ key: nonEmpty.max(100), value: z.unknown(), expected: z.unknown().optional() }).strict() as SchemaFor<"settings:set">,
  "settings:prompts": empty as SchemaFor<"settings:prompts">,
  "settings:hooks": empty as SchemaFor<"settings:hooks">,
  "settings:test-connection": z.object({ testId: testId.optional() }).strict(),
  "settings:cancel-test-connection": z.object({ testId }).strict(),
  // The message is kept exactly as typed (no trimming); it only has to contain something.
  "chat:send": z
    .object({ sessionId, text: z.string().max(1_000_000).refine((text) => text.trim() !== "", "empty message") })
    .strict(),
  "chat:continue": z.object({ sessionId }).strict(),
  "chat:abort": z.object({ sessionId }).strict(),
  "secrets:status": z.object({ names: z.array(secretName).max(100).optional() }).strict(),
  "secrets:set": z.object({ name: secretName, value: z.string().max(20_000).nullable() }).strict(),
};

/** One line saying what is wrong with an input, for error messages. */
export function describeInputError(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return "invalid input";
  const where = first.path.length > 0 ? `${first.path.join(".")}: ` : "";
  // Limits in words ("must be at most 1,000 characters long"); the rest as zod says it.
  const size = first.code === "too_big" || first.code === "too_small";
  return `${where}${size ? issueInWords(first, undefined) : first.message}`;
}
