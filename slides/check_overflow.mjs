// Checks that every slide's content fits on the slide. Marp cuts off whatever
// runs past the bottom of a 1280 x 720 slide without a word, so a long list or
// a tall picture silently loses its last lines. Needs Chromium.
//
//   node check_overflow.mjs CHROMIUM HTML_DIR
//
// HTML_DIR holds the decks rendered with Marp's bare template (render.sh does
// that): every slide is laid out at once there, at its real size. A slide fails
// when its content reaches into the bottom 20 pixels (where the page number
// sits, and below) or past the right edge, or when a code block is wider than
// the slide and scrolls. Prints one line per problem; exit status 1 if any.
import puppeteer from 'puppeteer-core';
import {readdirSync} from 'node:fs';
import {resolve} from 'node:path';

const [chromium, htmlDir] = process.argv.slice(2);
if (!chromium || !htmlDir) {
  console.error('usage: node check_overflow.mjs CHROMIUM HTML_DIR');
  process.exit(2);
}
const WIDTH = 1280, HEIGHT = 720, LOWEST = HEIGHT - 20;

const browser = await puppeteer.launch({executablePath: chromium, args: ['--no-sandbox']});
const problems = [];
try {
  const page = await browser.newPage();
  await page.setViewport({width: WIDTH, height: HEIGHT});
  for (const file of readdirSync(htmlDir).filter(name => name.endsWith('.html')).sort()) {
    await page.goto(`file://${resolve(htmlDir, file)}`, {waitUntil: 'load'});
    const slides = await page.evaluate(() => Array.from(document.querySelectorAll('section')).map(section => {
      const box = section.getBoundingClientRect();
      let bottom = 0, right = 0;
      for (const element of section.querySelectorAll('h1, h2, h3, p, li, pre, table, img')) {
        const r = element.getBoundingClientRect();
        bottom = Math.max(bottom, r.bottom - box.top);
        right = Math.max(right, r.right - box.left);
      }
      const scrolls = Array.from(section.querySelectorAll('pre')).some(pre => pre.scrollWidth > pre.clientWidth + 1);
      return {bottom: Math.round(bottom), right: Math.round(right), scrolls};
    }));
    slides.forEach((slide, i) => {
      const where = `${file} slide ${i + 1}`;
      if (slide.bottom > LOWEST) problems.push(`${where}: content reaches y = ${slide.bottom} of ${HEIGHT}: cut it or split the slide`);
      if (slide.right > WIDTH) problems.push(`${where}: content reaches x = ${slide.right} of ${WIDTH}`);
      if (slide.scrolls) problems.push(`${where}: a code block is wider than the slide`);
    });
  }
} finally {
  await browser.close();
}
for (const problem of problems) console.log(`slides: ${problem}`);
process.exit(problems.length ? 1 : 0);
