/**
 * Drives the VS Code workbench the way a person does (keys, quick input,
 * views, menus), each step waiting for what the screen shows before the next
 * key goes out: on a loaded machine a key sent while a widget still fades in
 * goes elsewhere, and an Enter sent before a quick pick has read its input
 * accepts the wrong row. describeScreen() says what was showing, for the
 * error of a step that timed out.
 */
import { basename } from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';

/** Long enough for a cold extension host on 2 shared cores. */
const UI_TIMEOUT = 60_000;

/** What a Testing row says about its last run, as its aria-label ends: `NAME (Passed)`. */
export type TestState = 'Passed' | 'Failed' | 'Errored' | 'Not yet run';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whitespace as one space: Monaco draws spaces as no-break spaces and labels wrap. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export class Workbench {
  constructor(readonly page: Page) {}

  /** The quick input (command palette, Quick Open, Go to Line, the extension's picks and input boxes). */
  get quick(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  /** Its text field. */
  get input(): Locator {
    return this.quick.locator('input').first();
  }

  /**
   * Opens a quick input with a key and waits until it is the one asked for
   * (its prefilled value, or its placeholder): a widget still showing from the
   * step before would otherwise take the text meant for this one.
   */
  private async openQuickInput(key: string, expect: { value: string } | { placeholder: string }): Promise<void> {
    await this.page.keyboard.press(key);
    await this.page.waitForFunction(
      (expect) => {
        const widget = document.querySelector<HTMLElement>('.quick-input-widget');
        const input = widget?.querySelector('input');
        if (!widget || !input || widget.style.display === 'none' || widget.offsetParent === null) return false;
        return 'value' in expect ? input.value === expect.value : input.placeholder.startsWith(expect.placeholder);
      },
      expect,
      { timeout: UI_TIMEOUT },
    );
  }

  /**
   * Accepts the quick pick's row labelled `label`, once that row is rendered
   * and focused: an Enter sent while the widget fades in is lost, and one sent
   * before the list has filtered accepts whatever row was first.
   */
  async choose(label: string | RegExp): Promise<void> {
    await this.quick.locator('.monaco-list-row.focused', { hasText: label }).first().waitFor({ timeout: UI_TIMEOUT });
    await this.input.press('Enter');
  }

  /** Types `text` into the shown input box and accepts it. */
  async answer(text: string): Promise<void> {
    await this.input.fill(text);
    await this.input.press('Enter');
  }

  /** Waits until the quick input shows `title` (a step of a multi-step pick or an input box). */
  async quickTitle(title: string | RegExp, timeout = UI_TIMEOUT): Promise<void> {
    await this.quick.locator('.quick-input-title', { hasText: title }).waitFor({ timeout });
  }

  /** Waits until the quick input shows `message` under its field (an input box's prompt). */
  async quickMessage(message: string | RegExp, timeout = UI_TIMEOUT): Promise<void> {
    await this.quick.locator('.quick-input-message', { hasText: message }).waitFor({ timeout });
  }

  /**
   * Runs a command from the palette by its full title (`View: Close All
   * Editors`). The row's label must be the title exactly: a prefix such as
   * `Close All Editors` also names `Close All Editors in Group`.
   */
  async command(title: string): Promise<void> {
    await this.openQuickInput('F1', { value: '>' });
    await this.input.fill(`>${title}`);
    await this.quick
      .locator('.monaco-list-row.focused', {
        has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) }),
      })
      .first()
      .waitFor({ timeout: UI_TIMEOUT });
    await this.input.press('Enter');
  }

  /** Opens a workspace file with Quick Open (Control+P) and waits until its editor is the active tab. */
  async quickOpen(query: string, fileName = basename(query)): Promise<void> {
    await this.openQuickInput('Control+P', { placeholder: 'Search files by name' });
    await this.input.fill(query);
    await this.choose(fileName);
    await this.page.locator('.tab.active', { hasText: fileName }).first().waitFor({ timeout: UI_TIMEOUT });
  }

  /**
   * Puts the cursor of the active editor at line:column (1-based) and waits
   * until the status bar says it is there and the editor has the focus again:
   * an Enter that reaches Go to Line before it has read the number leaves the
   * cursor where it was, and keys sent after it would edit the wrong line.
   */
  async goTo(line: number, column = 1): Promise<void> {
    await this.openQuickInput('Control+G', { value: ':' });
    await this.input.fill(`:${line}:${column}`);
    await this.quick
      .getByText(new RegExp(`line ${line}\\b.*(character|column) ${column}\\b`, 'i'))
      .first()
      .waitFor({ timeout: UI_TIMEOUT });
    await this.input.press('Enter');
    await this.page
      .locator('[id="status.editor.selection"]')
      .filter({ hasText: new RegExp(`^\\s*Ln ${line}, Col ${column}\\b`) })
      .waitFor({ timeout: 30_000 });
    await this.page.locator('.part.editor .monaco-editor.focused').first().waitFor({ timeout: 30_000 });
  }

  /** Closes every editor and waits until no tab is left. */
  async closeAllEditors(): Promise<void> {
    await this.command('View: Close All Editors');
    await this.page.locator('.tab').first().waitFor({ state: 'detached', timeout: UI_TIMEOUT });
  }

  /** A view of the side bar (a pane) by its title. */
  view(name: string): Locator {
    return this.page.locator('.pane', { has: this.page.locator('.pane-header', { hasText: name }) });
  }

  /** A CodeLens of the visible editors by its text. */
  lens(text: string | RegExp): Locator {
    return this.page.locator('.codelens-decoration a', { hasText: text });
  }

  /** The content of the active webview (trace explorer, compare). */
  webview(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  }

  /**
   * Waits until the active webview's page has `ready` (a text, or an element
   * for a selector), then returns all the page's text on one line.
   */
  async webviewText(ready: { text: string } | { selector: string }, timeout = 30_000): Promise<string> {
    const body = this.webview().locator('body');
    await ('text' in ready ? body.filter({ hasText: ready.text }) : body.locator(ready.selector).first()).waitFor({
      timeout,
    });
    return squeeze(await body.innerText());
  }

  /**
   * Clicks the CodeLens with `lensText` (waiting up to `lensTimeout` for it),
   * waits for the trace explorer's tab and returns its text once `ready` shows.
   */
  async openTraceFromLens(lensText: string | RegExp, ready: string, lensTimeout = 30_000): Promise<string> {
    const lens = this.lens(lensText).first();
    await lens.waitFor({ timeout: lensTimeout });
    await lens.click();
    await this.page.locator('.tab', { hasText: 'Trace' }).first().waitFor({ timeout: 30_000 });
    return this.webviewText({ text: ready });
  }

  /**
   * Shows a view container of the activity bar (`HUD Studio`, `Testing`,
   * `Explorer`). A click on the icon of the container already shown would
   * hide the side bar, so it clicks only when another one is shown.
   */
  async showContainer(name: string): Promise<void> {
    const item = (selected: string) =>
      this.page
        .locator(`.activitybar .action-item${selected}`, { has: this.page.locator(`[aria-label^="${name}"]`) })
        .first();
    await item('').waitFor({ timeout: UI_TIMEOUT });
    if ((await item('').getAttribute('aria-selected')) !== 'true') await item('').click();
    await item('[aria-selected="true"]').waitFor({ timeout: UI_TIMEOUT });
  }

  /** A row of the Testing view by the start of its aria-label (its label or description) and its state. */
  testRow(label: string, state: TestState): Locator {
    return this.page.locator(`.test-explorer .monaco-list-row[aria-label^="${label} (${state})"]`);
  }

  /** Clicks the Testing view's Run Tests (the view must be shown). */
  async runAllTests(): Promise<void> {
    await this.page.locator('.action-label[aria-label^="Run Tests"]').first().click();
  }

  /**
   * Expands a tree row (a Testing group, an Explorer folder). The row may be
   * drawn again while the click lands (results and file events re-render
   * trees), which swallows the click: it clicks again until the row says it is
   * expanded. `row` must find the row whether it is expanded or not.
   */
  async expand(row: Locator): Promise<void> {
    const expanded = row.and(this.page.locator('[aria-expanded="true"]'));
    for (let attempt = 1; ; attempt++) {
      if (await expanded.isVisible()) return;
      await row.locator('.monaco-tl-twistie').click();
      try {
        await expanded.waitFor({ timeout: 10_000 });
        return;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
  }

  /**
   * Runs an item of a tree row's context menu. A mouse click on the item can be
   * swallowed (the menu then stays open over the workbench) when it lands while
   * the menu is still settling on a loaded machine; hovering focuses the item
   * and Enter runs it, which the menu always takes.
   */
  async chooseFromContextMenu(row: Locator, label: string): Promise<void> {
    const menu = this.page.locator('.context-view .monaco-menu').first();
    // A right click focuses the row under the mouse and the menu acts on that row. When the tree draws its rows
    // anew as the click lands (the Runs view does while a rollout ends), it is another row: close, click again.
    for (let attempt = 1; ; attempt++) {
      await row.click({ button: 'right' });
      await menu.waitFor({ timeout: 30_000 });
      if (await row.and(this.page.locator('.focused')).isVisible()) break;
      await this.page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached', timeout: 30_000 });
      if (attempt === 3) throw new Error(`three right clicks opened the menu of another row than the one to act on`);
    }
    await this.hoverAndEnter(
      this.page.locator('.context-view .action-item', { has: this.page.locator('.action-label', { hasText: label }) }),
      this.page.locator('.context-view .action-item.focused', { hasText: label }),
    );
    await menu.waitFor({ state: 'detached', timeout: 30_000 });
  }

  /**
   * Opens Quick Fix at the cursor until it offers `label`. The editor asks
   * the language server for code actions with the diagnostics it holds at
   * that moment; right after an edit (a fix just applied) those can be the
   * ones of the text before it, and that widget never gains the row. So a
   * widget without it is closed and Quick Fix asked again, a few times.
   */
  async openQuickFix(label: string): Promise<void> {
    const row = this.page.locator('.action-widget .monaco-list-row', { hasText: label }).first();
    for (let attempt = 1; ; attempt++) {
      await this.command('Quick Fix...');
      try {
        await row.waitFor({ timeout: 10_000 });
        return;
      } catch (err) {
        if (attempt === 5) throw err;
        await this.page.keyboard.press('Escape');
        await this.page.locator('.action-widget').first().waitFor({ state: 'hidden', timeout: 10_000 });
      }
    }
  }

  /**
   * Applies an action of the code action widget (Quick Fix), the same way as
   * a context menu's: hover focuses the row (a click can land while the list
   * is re-rendered as more actions arrive), Enter applies it, and the widget
   * closes.
   */
  async chooseCodeAction(label: string): Promise<void> {
    await this.hoverAndEnter(
      this.page.locator('.action-widget .monaco-list-row', { hasText: label }),
      this.page.locator('.action-widget .monaco-list-row.focused', { hasText: label }),
    );
    await this.page.locator('.action-widget').first().waitFor({ state: 'hidden', timeout: 30_000 });
  }

  /** Hovers the first of `items`, waits until the list marks it `focused`, and presses Enter. */
  private async hoverAndEnter(items: Locator, focused: Locator): Promise<void> {
    await items.first().waitFor({ timeout: UI_TIMEOUT });
    await items.first().hover();
    await focused.first().waitFor({ timeout: 30_000 });
    await this.page.keyboard.press('Enter');
  }

  /** Closes the notification toasts that are showing. */
  async dismissToasts(): Promise<void> {
    for (const close of await this.page.locator('.notification-toast .codicon-notifications-clear').all())
      await close.click({ timeout: 2000 }).catch(() => undefined);
  }

  /**
   * What the workbench shows now, for the error of a step that timed out:
   * notifications, the quick input (title, text, message, rows, the focused
   * one marked), open menus, the active tab, the cursor and Testing rows.
   */
  async describeScreen(): Promise<string> {
    const page = this.page;
    const texts = async (l: Locator): Promise<string[]> =>
      (await l.allInnerTexts().catch(() => [] as string[])).map(squeeze).filter(Boolean);
    const labels = async (l: Locator): Promise<string[]> =>
      l
        .evaluateAll((els) =>
          els.map((e) => `${e.classList.contains('focused') ? '> ' : ''}${e.getAttribute('aria-label') ?? ''}`),
        )
        .catch(() => [] as string[]);
    const out = [`notifications: ${JSON.stringify(await texts(page.locator('.notification-list-item-message')))}`];
    if (await this.quick.isVisible().catch(() => false)) {
      const value = await this.input.inputValue({ timeout: 1000 }).catch(() => '?');
      out.push(
        `quick input: title ${JSON.stringify(await texts(this.quick.locator('.quick-input-title')))}, ` +
          `text ${JSON.stringify(value)}, message ${JSON.stringify(await texts(this.quick.locator('.quick-input-message')))}, ` +
          `rows ${JSON.stringify((await labels(this.quick.locator('.monaco-list-row'))).slice(0, 12))}`,
      );
    } else out.push('quick input: hidden');
    const menu = await texts(page.locator('.context-view .monaco-menu .action-item'));
    if (menu.length > 0) out.push(`context menu: ${JSON.stringify(menu)}`);
    const actions = await labels(page.locator('.action-widget .monaco-list-row'));
    if (actions.length > 0) out.push(`code actions: ${JSON.stringify(actions)}`);
    out.push(`active tab: ${JSON.stringify(await texts(page.locator('.tab.active')))}`);
    out.push(`cursor: ${JSON.stringify(await texts(page.locator('[id="status.editor.selection"]')))}`);
    const tests = await labels(page.locator('.test-explorer .monaco-list-row'));
    if (tests.length > 0) out.push(`Testing rows: ${JSON.stringify(tests)}`);
    // Last, as opening it closes the quick input: an information toast hides after some seconds, and a step that
    // timed out has mostly waited longer, but the notification center keeps every message of the session.
    out.push(`notification center: ${JSON.stringify(await this.notificationCenter().catch(() => ['unreadable']))}`);
    return out.join('\n');
  }

  /** Every notification of the session, newest first, read from the notification center (closed again). */
  private async notificationCenter(): Promise<string[]> {
    await this.command('Notifications: Show Notifications');
    const center = this.page.locator('.notifications-center');
    await center.waitFor({ timeout: 5000 });
    const messages = (await center.locator('.notification-list-item-message').allInnerTexts()).map(squeeze);
    await this.command('Notifications: Hide Notifications');
    return messages;
  }
}
