// Opens class pages written by `swift run workshop grade` (class.html) in
// headless Chromium, 1400 px wide and a phone's 390 px, and measures them at
// each width: the page is no wider than
// the window (the heat map scrolls in its own box), no two texts outside the
// heat map overlap, the heat map holds one cell per check and submission,
// each with a symbol and words for a screen reader, its sticky name column
// covers no cell, and the page fetches nothing.
//
//   node scripts/slides/classpage.cjs <chromium> <class.html>...
//
// Prints one line per page; exits 1 when a page fails.
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { execFileSync } = require('child_process');

const probe = `
<script>
function measure() {
  const found = [];
  const width = window.innerWidth;
  if (document.documentElement.scrollWidth > width) found.push('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + width + ' px window');
  const slack = 0.5;
  const overlap = (a, b) => a.left < b.right - slack && b.left < a.right - slack && a.top < b.bottom - slack && b.top < a.bottom - slack;
  const texts = [...document.querySelectorAll('h1, h2, p, ol.failing li, ul.plain li, table.chapters th, table.chapters td')]
    .filter((element) => !element.closest('.scroll') && element.textContent.trim().length > 0)
    .map((element) => ({ element, box: element.getBoundingClientRect() }));
  for (const { element, box } of texts) {
    if (box.right > width + slack) found.push(JSON.stringify(element.textContent.slice(0, 40)) + ' leaves the window');
  }
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      if (overlap(texts[i].box, texts[j].box)) {
        found.push(JSON.stringify(texts[i].element.textContent.slice(0, 40)) + ' overlaps ' + JSON.stringify(texts[j].element.textContent.slice(0, 40)));
      }
    }
  }
  const table = document.querySelector('table.heat');
  if (!table) return JSON.stringify({ cells: 0, found: found.concat(['no heat map']) });
  const submissions = Number(table.dataset.submissions);
  const checks = Number(table.dataset.checks);
  const rows = [...table.tBodies[0].rows];
  if (rows.length !== submissions) found.push(submissions + ' submissions, but ' + rows.length + ' rows');
  const kinds = new Set(['passed', 'failed', 'crashed', 'timedOut', 'notCompiled', 'notHandedIn', 'noResult']);
  let cells = 0;
  rows.forEach((row, index) => {
    const name = row.cells[0];
    const tds = [...row.querySelectorAll('td')];
    if (tds.length !== checks) found.push('row ' + (index + 1) + ' has ' + tds.length + ' cells for ' + checks + ' checks');
    if (!name.querySelector('a[href]')) found.push('row ' + (index + 1) + ' links to no report');
    for (const td of tds) {
      cells++;
      const words = td.querySelector('.sr');
      if (!kinds.has(td.className) || !words || words.textContent.trim().length === 0 || td.textContent.trim().length <= words.textContent.trim().length) {
        found.push('row ' + (index + 1) + ': a cell without its symbol or its words');
        break;
      }
    }
    if (tds.length > 0) {
      const a = name.getBoundingClientRect();
      const b = tds[0].getBoundingClientRect();
      if (a.right > b.left + slack) found.push('row ' + (index + 1) + ': the name covers the first cell');
    }
  });
  const heads = [...table.tHead.rows[1].cells].map((cell) => cell.getBoundingClientRect());
  for (let i = 1; i < heads.length; i++) if (heads[i - 1].right > heads[i].left + slack) { found.push('two column headers overlap'); break; }
  const box = document.querySelector('.scroll').getBoundingClientRect();
  if (box.right > width + slack) found.push('the heat map leaves the window');
  return JSON.stringify({ cells, found });
}
addEventListener('load', () => { document.body.setAttribute('data-measured', measure()); });
</script>`;

function check(chromium, pages) {
  let failed = 0;
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars'];
  // A desktop browser beside the projector, and a phone held in portrait.
  const widths = [[1400, 900], [390, 844]];
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'classpage-'));
  // A page that passed before, with this page, browser and fonts, is not opened again.
  const kept = require('./kept.cjs')(chromium, __filename);
  try {
    for (const page of pages) {
      const name = path.basename(path.dirname(page)) + '/' + path.basename(page);
      const text = fs.readFileSync(page, 'utf8');
      const fetches = text.match(/<(script|link|img|iframe)\b[^>]*\b(src|href)=|url\(|@import|href="(https?:)?\/\//i);
      if (fetches) { console.log(`${name}: the page would fetch something (${fetches[0]})`); failed++; continue; }
      const before = kept.passed(text);
      if (before) { console.log(`${name}: ${before} (unchanged since it last passed)`); continue; }
      const probed = path.join(folder, 'page.html');
      fs.writeFileSync(probed, text.replace('</body>', probe + '</body>'));
      let cells = 0;
      const found = [];
      for (const [width, height] of widths) {
        const dom = execFileSync(chromium, [...flags, `--window-size=${width},${height}`, '--virtual-time-budget=10000', '--dump-dom', probed], {
          encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 256 << 20,
        });
        const match = dom.match(/data-measured="([^"]*)"/);
        if (!match) { found.push(`at ${width} px: the browser did not measure it`); continue; }
        const result = JSON.parse(match[1].replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
        cells = result.cells;
        for (const problem of result.found) found.push(`at ${width} px: ${problem}`);
      }
      if (found.length) {
        failed++;
        for (const problem of found.slice(0, 20)) console.log(`${name}: ${problem}`);
      } else {
        const line = `${cells} cells drawn, nothing overlaps at ${widths.map(([width]) => width + ' px').join(' or ')}, nothing fetched`;
        console.log(`${name}: ${line}`);
        kept.pass(text, line);
      }
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
  return failed;
}

const [chromium, ...pages] = process.argv.slice(2);
if (!chromium || pages.length === 0) {
  console.error('usage: classpage.cjs <chromium> <class.html>...');
  process.exitCode = 64;
} else {
  process.exitCode = check(chromium, pages) === 0 ? 0 : 1;
}
