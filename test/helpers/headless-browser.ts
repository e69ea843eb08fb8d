import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Whether Debian's Chromium is installed; suites that need it skip with a visible message otherwise. */
export const hasChromium = fs.existsSync(CHROMIUM_PATH);
if (!hasChromium) {
  console.warn(`[content-gateway tests] ${CHROMIUM_PATH} is absent: headless-browser suites are SKIPPED (install Debian's chromium to run them).`);
}

export interface HeadlessBrowser {
  context: BrowserContext;
  /** Opens a file:// page; collects console errors and page errors as they happen. */
  open(file: string): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

/**
 * Headless Chromium (Debian's, driven by playwright-core) with a fresh profile in a temp dir, no
 * network services, no sandbox (containers) and no GPU.
 */
export async function launchHeadless(): Promise<HeadlessBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
  // playwright passes the fresh profile as --user-data-dir itself (it refuses the flag in args).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-quic',
      '--disable-sync',
    ],
  });
  return {
    context,
    open: async (file) => {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`file://${path.resolve(file)}`);
      return { page, errors };
    },
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Whether a canvas has any drawn (non-transparent) pixel: a chart was rendered, not just laid out. */
export async function canvasHasInk(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (el) => {
    // The test tsconfig has no DOM library: the few canvas members used, typed here.
    const canvas = el as unknown as {
      width: number;
      height: number;
      getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
    };
    if (canvas.width === 0 || canvas.height === 0) return false;
    const ctx = canvas.getContext('2d');
    if (!ctx) return false;
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) return true;
    return false;
  });
}
