/**
 * App-wide notices: what the desktop shell reports (app:command notify), dropped files, exports.
 */
import { useCanopy } from "../../store/index.ts";

export function Notice() {
  const notice = useCanopy((state) => state.notice);
  const notify = useCanopy((state) => state.notify);
  if (!notice) return null;
  return (
    <p
      className={`notice ${notice.level === "error" ? "error" : "ok"}`}
      role={notice.level === "error" ? "alert" : "status"}
      data-testid="notice"
    >
      {notice.message}{" "}
      <button type="button" className="link-button" onClick={() => notify(null)} aria-label="Dismiss">
        Dismiss
      </button>
    </p>
  );
}
