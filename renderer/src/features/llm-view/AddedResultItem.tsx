/**
 * A tool result that only the request has (SPEC §3.6 step 6): the synthetic error result for a
 * tool call without one, shown where the request inserts it and marked as added by the request.
 * It carries no `data-role`: that marks the messages of the LLM view itself.
 */
import { memo } from "react";
import type { AddedResult } from "../../../../core/session/request-messages.ts";
import { addedResultText } from "../../../../core/session/request-notes.ts";
import { messageText } from "../../../../core/session/message-text.ts";
import { showBidiControls } from "../common/bidi-controls.ts";

export const AddedResultItem = memo(function AddedResultItem({ added }: { added: AddedResult }) {
  const { message } = added;
  const body = message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  return (
    <li
      className="message role-toolResult request-added"
      data-request="added"
      data-tool-call-id={message.toolCallId}
      aria-label={`Added by the request: ${messageText(message)} for tool call ${message.toolCallId}`}
    >
      <div className="message-meta">
        <span className="index">+</span>
        <span className="role">tool result</span>
        {typeof message.toolName === "string" && message.toolName !== "" && (
          <code className="tool-name">{showBidiControls(message.toolName)}</code>
        )}
        {message.isError && <span className="flag error-flag">error</span>}
        <span className="flag request-flag">added by the request</span>
        <span className="answers">answers #{added.callIndex + 1}</span>
      </div>
      <p className="request-note">{showBidiControls(addedResultText(added))}</p>
      <div className="message-body">
        <pre className="tool-output">{body}</pre>
      </div>
    </li>
  );
});
