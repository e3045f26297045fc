/**
 * Drag-and-drop of session files onto the window: imported in the desktop app, explained in
 * browser mode. Returns whether files are being dragged over the window (for a drop hint).
 */
import { useEffect, useState } from "react";
import { useCanopy } from "../../store/index.ts";
import { dragHasFiles, planDrop } from "./file-drop.ts";

export function useFileDrop(): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    let depth = 0;
    const onEnter = (event: DragEvent) => {
      if (!dragHasFiles(event.dataTransfer?.types)) return;
      depth++;
      setOver(true);
    };
    const onLeave = (event: DragEvent) => {
      if (!dragHasFiles(event.dataTransfer?.types)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const onOver = (event: DragEvent) => {
      if (!dragHasFiles(event.dataTransfer?.types)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    };
    const onDrop = (event: DragEvent) => {
      if (!dragHasFiles(event.dataTransfer?.types)) return;
      event.preventDefault();
      depth = 0;
      setOver(false);
      const bridge = window.canopy;
      const pathForFile = bridge?.pathForFile ? (file: File) => bridge.pathForFile?.(file) ?? "" : undefined;
      const plan = planDrop(Array.from(event.dataTransfer?.files ?? []), pathForFile);
      const state = useCanopy.getState();
      if (plan.kind === "unsupported") state.notify({ level: "error", message: plan.message });
      if (plan.kind !== "import") return;
      void state.importDropped(plan.paths, plan.skipped);
    };
    window.addEventListener("dragenter", onEnter);
    window.addEventListener("dragleave", onLeave);
    window.addEventListener("dragover", onOver);
    window.addEventListener("drop", onDrop);
    return () => {
      window.removeEventListener("dragenter", onEnter);
      window.removeEventListener("dragleave", onLeave);
      window.removeEventListener("dragover", onOver);
      window.removeEventListener("drop", onDrop);
    };
  }, []);
  return over;
}
