/**
 * What a screen reader says after a control's name in Chromium: its accessible description (a
 * title it carries, aria-describedby), read from the browser's accessibility tree over CDP.
 */
import type { Locator } from "playwright-core";

export async function accessibleDescription(control: Locator): Promise<string> {
  const page = control.page();
  const cdp = await page.context().newCDPSession(page);
  try {
    await control.evaluate((element) => element.setAttribute("data-describe-me", ""));
    const found = await cdp.send("Runtime.evaluate", {
      expression: "document.querySelector('[data-describe-me]')",
    });
    await control.evaluate((element) => element.removeAttribute("data-describe-me"));
    const { nodes } = await cdp.send("Accessibility.getPartialAXTree", {
      objectId: found.result.objectId,
      fetchRelatives: false,
    });
    return String(nodes[0]?.description?.value ?? "");
  } finally {
    await cdp.detach();
  }
}
