/**
 * LLM-view slice: the message list the model receives at the selected leaf (SPEC D4), the limits
 * the context bar measures it against (window and compaction reserve from settings), and the
 * diff mode (two leaves, or before/after a compaction).
 */
import type { StateCreator } from "zustand";
import { mergeContextAnswer } from "../../../core/api/context-answer.ts";
import type { ContextView } from "../../../core/api/dto.ts";
import {
  type ContextDiff,
  diffContextsWithLinks,
  type EntryLink,
} from "../../../core/session/context-diff.ts";
import { call } from "../api.ts";
import type { ContextLimits } from "../features/llm-view/context-figures.ts";
import { entryLinks } from "../features/llm-view/entry-links.ts";
import type { CanopyState } from "./index.ts";
import { latestOnly } from "./latest-only.ts";
import { readStored, writeStored } from "./page-storage.ts";

const PLAIN_TEXT_KEY = "canopy.llmView.plainText";

/**
 * Selections less than this apart (a held arrow key repeats every 30–90 ms) while the view of the
 * one before is still on its way are a burst: the view is asked for once they stop, for the last
 * one only.
 */
export const CONTEXT_SETTLE_MS = 150;

export interface LlmDiffState {
  /** What is compared, in words ("View leaf → selected entry"). */
  title: string;
  kind: "leaves" | "compaction";
  before: ContextView;
  after: ContextView;
  result: ContextDiff;
}

export interface LlmViewSlice {
  context: ContextView | null;
  contextLoading: boolean;
  contextError: string | null;
  /** null until settings:get answered; contextWindow null = no model (offline summarizer). */
  limits: ContextLimits | null;
  limitsError: string | null;
  diff: LlmDiffState | null;
  diffLoading: boolean;
  diffError: string | null;
  /** Bumped by "expand all" / "collapse all"; messages follow it until toggled one by one. */
  expandAll: { expanded: boolean; revision: number };
  /** Texts shown exactly as sent (markdown not rendered); kept in the page's storage. */
  plainText: boolean;
  setPlainText(plain: boolean): void;
  /**
   * Asks for the view at `leafId` (undefined: the view leaf). Only the newest of quick successive
   * asks is fetched, one fetch at a time; resolves once it, or a newer one, has been answered.
   */
  loadContext(sessionId: string | null, leafId: string | null | undefined): Promise<void>;
  /**
   * The view on screen with all its texts: `context` itself unless some came without their
   * middle (textHoles); then the whole view is asked for once and, still on screen, replaces it.
   */
  loadWholeContext(): Promise<ContextView>;
  loadLimits(): Promise<void>;
  /** Compares what the model receives at two leaves (null: an empty context). */
  openLeafDiff(beforeLeafId: string | null, afterLeafId: string | null, title?: string): Promise<void>;
  /** Compares the compaction's parent (before) with the compaction itself (after). */
  openCompactionDiff(compactionId: string): Promise<void>;
  closeDiff(): void;
  setExpandAll(expanded: boolean): void;
}

export const createLlmViewSlice: StateCreator<CanopyState, [], [], LlmViewSlice> = (set, get) => {
  // Answers can come back out of order (fast selection changes): only the latest request counts.
  let contextRequest = 0;
  let diffRequest = 0;
  let whole: { of: ContextView; view: Promise<ContextView> } | null = null;

  // The page shows only the provider messages: the agent's would double the answer's size.
  const fetchView = (
    sessionId: string,
    leafId: string | null | undefined,
    holeLongTexts = false,
    since?: string | null,
  ) =>
    call("context:get", {
      sessionId,
      ...(leafId === undefined ? {} : { leafId }),
      agentMessages: false,
      ...(holeLongTexts ? { holeLongTexts } : {}),
      ...(since === undefined ? {} : { since }),
    });

  // On a long path one answer takes seconds to build and carry: asked for on every arrow move,
  // they queued up on the serving thread and the view showed the final entry only after all the
  // ones passed over. Now one is asked at a time, for the newest selection only, after a burst.
  const contextAsks = latestOnly<{ request: number; sessionId: string; leafId: string | null | undefined }>(
    async ({ request, sessionId, leafId }) => {
      // Settings may have changed since (model configured, reserve edited): cheap to re-read.
      void get().loadLimits();
      try {
        // The messages this view shares at the start with the one on screen (a neighbouring
        // entry's: all but a few) are not sent again.
        const shown = get().context;
        const base = shown?.sessionId === sessionId && shown.answerId !== undefined ? shown : null;
        // Very long texts come without their middle: the view shows their beginning only.
        const answer = await fetchView(sessionId, leafId, true, base?.answerId ?? null);
        // Ignore a late answer for another session or an older selection.
        if (request === contextRequest && get().selectedSessionId === sessionId)
          set({ context: mergeContextAnswer(base, answer), contextLoading: false });
      } catch (error) {
        if (request === contextRequest)
          set({ context: null, contextLoading: false, contextError: (error as Error).message });
      }
    },
    CONTEXT_SETTLE_MS,
  );

  /**
   * The entries' links of the open session: its tree's, or asked for when the tree shown is still
   * another session's (a session just opened whose LLM view came before its tree).
   */
  const linksOf = async (sessionId: string) => {
    const tree = get().tree;
    return entryLinks(tree?.sessionId === sessionId ? tree : await call("session:tree", { sessionId }));
  };

  const runDiff = async (
    beforeLeafId: string | null,
    afterLeafId: string | null,
    title: string,
    kind: LlmDiffState["kind"],
  ) => {
    const sessionId = get().selectedSessionId;
    if (!sessionId) return;
    const request = ++diffRequest;
    set({ diffLoading: true, diffError: null });
    try {
      const [before, after, links] = await Promise.all([
        fetchView(sessionId, beforeLeafId),
        fetchView(sessionId, afterLeafId),
        linksOf(sessionId),
      ]);
      if (request !== diffRequest || get().selectedSessionId !== sessionId) return;
      // The tree as it is now, if it is this session's by now (it may have grown meanwhile).
      const tree = get().tree;
      const result = diffContextsWithLinks(
        before,
        after,
        tree?.sessionId === sessionId ? entryLinks(tree) : links,
      );
      set({ diff: { title, kind, before, after, result }, diffLoading: false });
    } catch (error) {
      if (request === diffRequest) set({ diffLoading: false, diffError: (error as Error).message });
    }
  };

  return {
    context: null,
    contextLoading: false,
    contextError: null,
    limits: null,
    limitsError: null,
    diff: null,
    diffLoading: false,
    diffError: null,
    expandAll: { expanded: false, revision: 0 },
    plainText: readStored(PLAIN_TEXT_KEY) === "1",
    setPlainText(plain) {
      writeStored(PLAIN_TEXT_KEY, plain ? "1" : "0");
      set({ plainText: plain });
    },
    async loadContext(sessionId, leafId) {
      // A refresh of a session no longer open (an edit or a job that ended after the user opened
      // another one) is not the latest request: counted, it would drop the open session's answer
      // and leave its LLM view loading for good.
      if (sessionId && sessionId !== get().selectedSessionId) return;
      const request = ++contextRequest;
      if (!sessionId) {
        contextAsks.drop();
        set({ context: null, contextError: null, contextLoading: false });
        return;
      }
      set({ contextLoading: true, contextError: null });
      await contextAsks.ask({ request, sessionId, leafId });
    },
    loadWholeContext() {
      const current = get().context;
      if (!current) return Promise.reject(new Error("no LLM view is open"));
      if (!current.textHoles?.length) return Promise.resolve(current);
      if (whole?.of !== current) {
        const view = fetchView(current.sessionId, current.leafId).then((result) => {
          if (get().context === current) set({ context: result });
          return result;
        });
        const asked = { of: current, view };
        whole = asked;
        // A failure is not kept: the next click asks again.
        view.catch(() => {
          if (whole === asked) whole = null;
        });
      }
      return whole.view;
    },
    async loadLimits() {
      try {
        const settings = await call("settings:get", {});
        const limits: ContextLimits = {
          contextWindow: settings.model?.contextWindow ?? null,
          reserveTokens: settings.compaction.reserveTokens,
          compactionEnabled: settings.compaction.enabled,
          offlineSummarizer: settings.model === null && !settings.compaction.remoteEndpoint,
          modelConfigured: settings.model !== null,
          remoteSummarizer: Boolean(settings.compaction.remoteEndpoint),
        };
        const current = get().limits;
        const same =
          current !== null &&
          current.contextWindow === limits.contextWindow &&
          current.reserveTokens === limits.reserveTokens &&
          current.compactionEnabled === limits.compactionEnabled &&
          current.offlineSummarizer === limits.offlineSummarizer &&
          current.modelConfigured === limits.modelConfigured &&
          current.remoteSummarizer === limits.remoteSummarizer;
        if (!same || get().limitsError !== null) set({ limits, limitsError: null });
      } catch (error) {
        set({ limitsError: (error as Error).message });
      }
    },
    async openLeafDiff(beforeLeafId, afterLeafId, title) {
      await runDiff(
        beforeLeafId,
        afterLeafId,
        title ?? `${beforeLeafId ?? "(empty)"} → ${afterLeafId ?? "(empty)"}`,
        "leaves",
      );
    },
    async openCompactionDiff(compactionId) {
      const sessionId = get().selectedSessionId;
      if (!sessionId) return;
      let link: EntryLink | undefined;
      try {
        link = (await linksOf(sessionId)).get(compactionId);
      } catch (error) {
        set({ diffError: (error as Error).message });
        return;
      }
      if (get().selectedSessionId !== sessionId) return;
      if (link?.type !== "compaction") {
        set({ diffError: `${compactionId} is not a compaction of this session` });
        return;
      }
      await runDiff(link.parentId, compactionId, `Before → after compaction ${compactionId}`, "compaction");
    },
    closeDiff() {
      diffRequest++;
      set({ diff: null, diffLoading: false, diffError: null });
    },
    setExpandAll(expanded) {
      set({ expandAll: { expanded, revision: get().expandAll.revision + 1 } });
    },
  };
};
