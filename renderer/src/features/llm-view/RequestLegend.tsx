/**
 * The request line above the LLM view's messages: whose request the annotations describe (the
 * configured model's, as Canopy sends it, or the session's own model's, as the agent sends it),
 * how many messages it carries, and — when it changes anything — the key to the marks.
 */
import type { RequestView } from "../../../../core/api/dto.ts";
import { counted } from "../../../../core/session/describe.ts";
import { requestTargetText, requestUnchanged } from "../../../../core/session/request-notes.ts";

export function RequestLegend({ request }: { request: RequestView }) {
  const unchanged = requestUnchanged(request.changes, request.added);
  return (
    <div
      className="request-legend"
      data-testid="request-legend"
      data-unchanged={unchanged ? "true" : "false"}
    >
      <p>
        {requestTargetText(request.target)} The request carries {counted(request.messageCount, "message")}
        {unchanged ? ": the messages below, as they are." : "."}
      </p>
      {!unchanged && (
        <p className="request-keys">
          <span className="request-key added">+ added by the request</span>
          <span className="request-key dropped">not sent</span>
          <span className="request-key changed">changed by the request</span>
          <span className="note">(done to every request after this list, SPEC §3.6)</span>
        </p>
      )}
    </div>
  );
}
