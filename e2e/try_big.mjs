import { launchBrowser, openPage, startServer, ready, TIMEOUT_MS } from './helpers.mjs';
import { readFileSync } from 'node:fs';
const [scores, labels, query] = process.argv.slice(2);
const server = await startServer();
const browser = await launchBrowser();
const { page } = await openPage(browser);
page.on('console', (m) => console.log('console:', m.text()));
await page.goto(new URL('?' + (query ?? ''), server.url).href, { waitUntil: 'load' });
await ready(page);
const shown = await page.evaluate(() => Number(document.querySelector('#status').dataset.shown));
const t0 = Date.now();
await page.locator('#file').setInputFiles([scores, labels]);
let peak = 0;
const mem = async () => {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  await cdp.detach();
  for (const p of processInfo.filter((p) => p.type === 'renderer')) {
    const status = readFileSync(`/proc/${p.id}/status`, 'utf8');
    peak = Math.max(peak, Number(status.match(/^VmHWM:\s+(\d+) kB/m)[1]) / 1024);
  }
};
const rss = async () => {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  await cdp.detach();
  return processInfo.filter((p) => p.type === 'renderer').map((p) => {
    const status = readFileSync(`/proc/${p.id}/status`, 'utf8');
    return (Number(status.match(/^VmRSS:\s+(\d+) kB/m)[1]) / 1024).toFixed(0);
  }).join('/');
};
const timer = setInterval(async () => {
  console.log(((Date.now() - t0) / 1000).toFixed(1), await rss(), await page.locator('#status').textContent());
}, 3000);
await page.waitForFunction((after) => {
  const s = document.querySelector('#status');
  return (s?.dataset.state === 'ready' && Number(s.dataset.shown) > after) || s?.dataset.state === 'failed';
}, shown, { timeout: 3600_000 });
clearInterval(timer);
await mem();
console.log('done in', (Date.now() - t0) / 1000, 's; renderer peak', peak.toFixed(0), 'MB');
console.log(await page.locator('#status').textContent());
console.log(await page.locator('#error').textContent().catch(() => ''));
console.log(await page.locator('#summary-table tbody').textContent());
await browser.close();
await server.close();
