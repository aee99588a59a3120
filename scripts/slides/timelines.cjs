// Opens pages written by `swift run workshop check <chapter> --timeline` in
// headless Chromium and measures every timeline in the DOM: each picture is
// drawn, no text leaves it, no label reaches past the lanes it joins, and no
// two texts or lane headers overlap.
//
//   node scripts/slides/timelines.cjs <chromium> <page.html>...
//
// Prints one line per page; exits 1 when a picture fails.
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { execFileSync } = require('child_process');

const probe = `
<script>
function measure() {
  const found = [];
  const pictures = document.querySelectorAll('svg.timeline');
  pictures.forEach((svg) => {
    const name = svg.getAttribute('aria-label');
    const say = (text) => found.push(name + ': ' + text);
    const frame = svg.viewBox.baseVal;
    const drawn = svg.getBoundingClientRect();
    if (drawn.width < 50 || drawn.height < 50) say('not drawn');
    const texts = [...svg.querySelectorAll('text')].map((element) => ({ element, box: element.getBBox() }))
      .filter(({ element }) => element.textContent.length > 0);
    if (!texts.some(({ element }) => element.classList.contains('event'))) say('no events drawn');
    // Every event is drawn: its group holds its words and a visible mark.
    const groups = [...svg.querySelectorAll('g.step')];
    const steps = Number(svg.getAttribute('data-steps'));
    if (groups.length !== steps) say(steps + ' events, but ' + groups.length + ' drawn');
    for (const group of groups) {
      const marks = [...group.querySelectorAll('line, circle, rect')].map((mark) => mark.getBBox());
      const seen = marks.some((box) => box.width > 0 || box.height > 0);
      if (!group.querySelector('text.event') || !seen) say('event ' + group.getAttribute('data-number') + ' is not drawn');
    }
    const slack = 0.5;
    for (const { element, box } of texts) {
      const words = JSON.stringify(element.textContent);
      if (box.x < -slack || box.y < -slack || box.x + box.width > frame.width + slack || box.y + box.height > frame.height + slack) {
        say(words + ' leaves the picture');
      }
      const span = element.getAttribute('data-span');
      if (span) {
        const [low, high] = span.split(' ').map(Number);
        if (box.x < low - slack || box.x + box.width > high + slack) say(words + ' reaches past the lanes it joins');
      }
    }
    const overlap = (a, b) => a.x < b.x + b.width - slack && b.x < a.x + a.width - slack &&
      a.y < b.y + b.height - slack && b.y < a.y + a.height - slack;
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        if (overlap(texts[i].box, texts[j].box)) {
          say(JSON.stringify(texts[i].element.textContent) + ' overlaps ' + JSON.stringify(texts[j].element.textContent));
        }
      }
    }
    const lanes = [...svg.querySelectorAll('rect.lane-box')].map((element) => element.getBBox());
    for (let i = 0; i < lanes.length; i++) {
      for (let j = i + 1; j < lanes.length; j++) if (overlap(lanes[i], lanes[j])) say('two lane headers overlap');
    }
  });
  return JSON.stringify({ pictures: pictures.length, sections: document.querySelectorAll('section').length, found });
}
addEventListener('load', async () => {
  await document.fonts.ready;
  document.body.setAttribute('data-measured', measure());
});
</script>`;

function check(chromium, pages) {
  let failed = 0;
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars',
    '--window-size=1280,720'];
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'timelines-'));
  // A page that passed before, with this page, browser and fonts, is not opened again.
  const kept = require('./kept.cjs')(chromium, __filename);
  try {
    for (const page of pages) {
      const name = path.basename(page);
      const html = fs.readFileSync(page, 'utf8');
      const before = kept.passed(html);
      if (before) { console.log(`${name}: ${before} (unchanged since it last passed)`); continue; }
      const probed = path.join(folder, name);
      fs.writeFileSync(probed, html.replace('</body>', probe + '</body>'));
      const dom = execFileSync(chromium, [...flags, '--virtual-time-budget=10000', '--dump-dom', probed], {
        encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20,
      });
      const match = dom.match(/data-measured="([^"]*)"/);
      if (!match) { console.log(`${name}: the browser did not measure it`); failed++; continue; }
      const result = JSON.parse(match[1].replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
      if (result.pictures !== result.sections) {
        result.found.push(`${result.sections} checks but ${result.pictures} pictures`);
      }
      if (result.found.length) {
        failed++;
        for (const problem of result.found) console.log(`${name}, timeline ${problem}`);
      } else {
        const line = `${result.pictures} timeline${result.pictures === 1 ? "" : "s"} drawn, nothing overlaps`;
        console.log(`${name}: ${line}`);
        kept.pass(html, line);
      }
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
  return failed;
}

const [chromium, ...pages] = process.argv.slice(2);
if (!chromium || pages.length === 0) {
  console.error('usage: timelines.cjs <chromium> <page.html>...');
  process.exitCode = 64;
} else {
  process.exitCode = check(chromium, pages) === 0 ? 0 : 1;
}
