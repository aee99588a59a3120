// Renders the Marp decks in Slides/ with Marp's own engine, offline, and
// checks them in headless Chromium.
//
//   node scripts/slides/marp.cjs render <engine-dir> <out-dir> <deck.md>...
//   node scripts/slides/marp.cjs check <chromium> <out-dir> <deck.html>...
//
// The engine is @marp-team/marp-core 3.6 as PyPI's `marpyter` 0.1.0 ships it
// (a JupyterLab extension whose webpack bundle holds it): Marp's CLI comes
// from npm, which these machines cannot reach (see scripts/render-slides.sh).
'use strict';
const vm = require('vm');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

/// Marp's class from the extension's webpack chunks, with the few parts of
/// webpack's runtime those modules use.
function loadMarp(engineDir) {
  globalThis.self = globalThis;
  for (const file of fs.readdirSync(engineDir).filter((f) => /^\d+\..*\.js$/.test(f))) {
    vm.runInThisContext(fs.readFileSync(path.join(engineDir, file), 'utf8'), { filename: file });
  }
  const modules = {};
  for (const [, chunk] of self.webpackChunkmarpyter || []) Object.assign(modules, chunk);
  // Module Federation's shared modules: "util" is consumed from the host.
  const shared = { 88538: () => require('util') };
  const cache = {};
  function load(id) {
    if (cache[id]) return cache[id].exports;
    const module = (cache[id] = { id, loaded: false, exports: {} });
    if (!modules[id] && shared[id]) return (module.exports = shared[id]());
    if (!modules[id]) throw new Error(`the engine has no module ${id}`);
    modules[id].call(module.exports, module, module.exports, load);
    module.loaded = true;
    return module.exports;
  }
  load.o = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
  load.d = (exports, getters) => {
    for (const key in getters)
      if (load.o(getters, key) && !load.o(exports, key))
        Object.defineProperty(exports, key, { enumerable: true, get: getters[key] });
  };
  load.r = (exports) => {
    Object.defineProperty(exports, Symbol.toStringTag, { value: 'Module' });
    Object.defineProperty(exports, '__esModule', { value: true });
  };
  load.n = (module) => {
    const getter = module && module.__esModule ? () => module.default : () => module;
    load.d(getter, { a: getter });
    return getter;
  };
  load.g = globalThis;
  const id = Object.keys(modules).find((key) => modules[key].toString().includes('t.Marp='));
  if (!id) throw new Error(`no Marp engine in ${engineDir}`);
  return load(id).Marp;
}

/// One self-contained page per deck: Marp's slides, its theme and the
/// deck's own style; speaker notes stay out of the slides, as in Marp.
function render(engineDir, outDir, decks) {
  const Marp = loadMarp(engineDir);
  fs.mkdirSync(outDir, { recursive: true });
  for (const deck of decks) {
    // Emoji stay text: Marp's default turns them into Twemoji pictures from
    // a CDN, which a room without Wi-Fi never sees.
    const marp = new Marp({ html: true, inlineSVG: true, emoji: { shortcode: false, unicode: false } });
    const source = fs.readFileSync(deck, 'utf8');
    const rendered = marp.render(source);
    const { css, comments } = rendered;
    // A translation (Slides/zh-Hans/04-DebouncedSearch.md) is its own page,
    // 04-DebouncedSearch.zh-Hans.html, in its language: the browser then
    // picks the fonts of that language (Chinese, not Japanese, glyphs).
    const language = path.basename(path.dirname(deck)) === 'zh-Hans' ? 'zh-Hans' : 'en';
    const name = path.basename(deck, '.md') + (language === 'en' ? '' : `.${language}`);
    // The same deck with Marp's default settings, as VS Code's Marp extension
    // previews it: raw HTML is not rendered there (a `<style scoped>` that
    // shrank a slide would not, and the slide would run off its bottom),
    // and emoji become pictures from a CDN. The slides must not differ.
    const preview = new Marp({ inlineSVG: true }).render(source).html;
    const remote = preview.match(/\b(?:src|href)="(?:https?:)?\/\/[^"]+"/);
    if (remote && !rendered.html.includes(remote[0])) throw new Error(`${deck}: with Marp's default settings (VS Code's extension) the deck would load ${remote[0]} from the network: write the emoji or picture otherwise`);
    const comparable = (html) => html.replace(/data-marpit-scope-[\w-]+/g, 'scope');
    if (comparable(preview) !== comparable(rendered.html)) {
      const [ours, theirs] = [rendered.html, preview].map((html) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '));
      let at = 0;
      while (at < ours.length && ours[at] === theirs[at]) at++;
      const near = (text) => text.slice(Math.max(0, at - 20), at + 40).trim();
      throw new Error(`${deck}: renders differently with Marp's default settings, as VS Code's extension shows it (it does not render the deck's HTML): "${near(ours)}" here, "${near(theirs)}" there`);
    }
    // Pictures next to the deck (Slides/timelines/*.svg) go into the page, so
    // it stays one self-contained file; a picture that is missing fails.
    const html = rendered.html.replace(/(<img\b[^>]*?\ssrc=")([^"]+)(")/g, (whole, before, source, after) => {
      if (/^(data:|https?:|\/)/.test(source)) return whole;
      const file = path.join(path.dirname(deck), decodeURI(source));
      if (!fs.existsSync(file)) throw new Error(`${deck}: the picture ${source} does not exist`);
      const type = file.endsWith('.svg') ? 'image/svg+xml' : file.endsWith('.png') ? 'image/png' : 'image/jpeg';
      return before + `data:${type};base64,` + fs.readFileSync(file).toString('base64') + after;
    });
    // The speaker notes, for the presenter view: JSON that cannot end its script.
    // A note's lines are one paragraph until a blank line, as Markdown reads them.
    const paragraphs = (text) => text.trim().replace(/([^\n])\n(?!\n)/g, '$1 ');
    const notes = JSON.stringify(comments.map((list) => list.map(paragraphs).join('\n\n'))).replace(/</g, '\\u003c');
    const slideshow = fs.readFileSync(path.join(__dirname, 'slideshow.js'), 'utf8');
    const page = `<!DOCTYPE html>
<html lang="${language}"><head><meta charset="utf-8"><title>${name}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${css}</style>
<style>
  html, body { margin: 0; background: #555; }
  div.marpit > svg { display: block; width: 100vw; height: 56.25vw; margin-bottom: 8px; }
  /* The slideshow: one slide, as large as the window allows. */
  body.slideshow { background: #000; overflow: hidden; }
  body.slideshow div.marpit > svg { display: none; margin: 0; }
  body.slideshow div.marpit > svg.current {
    display: block; position: fixed; inset: 0; margin: auto;
    width: min(100vw, 177.78vh); height: min(56.25vw, 100vh);
  }
  @media print {
    body.slideshow { background: #555; overflow: visible; }
    body.slideshow div.marpit > svg, div.marpit > svg {
      display: block; position: static; width: 100vw; height: 56.25vw; page-break-after: always; margin: 0;
    }
  }
</style></head><body>
${html}
<script type="application/json" id="speaker-notes">${notes}</script>
<script>${slideshow}</script>
</body></html>
`;
    // Nothing from the network: the page must work offline, in a room.
    const external = page.match(/\b(?:src|href)="(?:https?:)?\/\/[^"]+"|url\(\s*['"]?(?:https?:)?\/\/[^)]+\)|@import[^;]*?\/\/[^;]+;/);
    if (external) throw new Error(`${deck}: the page would load ${external[0]} from the network; keep every resource in the deck`);
    fs.writeFileSync(path.join(outDir, `${name}.html`), page);
    console.log(`${name}: ${comments.length} slides`);
  }
}

/// What the browser measures on every slide: content that ends outside the
/// 1280x720 frame, a box clipped inside it, code wider than its block, or a
/// picture whose text is too small to read.
const measure = `
<script>
// What a room reads from 8 m on a 1280x720 slide: text (prose, tables,
// code inside prose) of 24 px, code blocks of 20 px, and every text at
// 4.5:1 against what is behind it (WCAG's AA contrast for body text), and
// a recorded timeline's text of 20 px as the slide draws it (the pictures
// wrap their labels to stay that large).
const MIN_TEXT_PX = 24;
const MIN_CODE_PX = 20;
const MIN_PICTURE_PX = 20;
const MIN_CONTRAST = 4.5;
// WCAG's relative luminance of a computed colour, and the contrast of two.
function luminance(color) {
  const [r, g, b] = color.match(/[0-9.]+/g).slice(0, 3).map((v) => {
    v = Number(v) / 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(one, other) {
  const [a, b] = [luminance(one), luminance(other)];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
// The colour behind an element: the first ancestor's that is not see-through.
function background(element) {
  for (let e = element; e; e = e.parentElement) {
    const color = getComputedStyle(e).backgroundColor;
    const parts = color.match(/[0-9.]+/g) || [];
    if (parts.length === 3 || (parts.length === 4 && Number(parts[3]) > 0.5)) return color;
  }
  return 'rgb(255, 255, 255)';
}
// How much Marp's auto-scaling shrinks a code block to fit: its width or its
// height, whichever is tighter.
function shrinkOf(pre, scale) {
  const fitter = pre && pre.shadowRoot && pre.shadowRoot.querySelector('marp-auto-scaling');
  const svg = fitter && fitter.shadowRoot && fitter.shadowRoot.querySelector('svg');
  const viewBox = svg && svg.viewBox && svg.viewBox.baseVal;
  const drawn = svg && svg.getBoundingClientRect();
  return viewBox && viewBox.width > 0 && viewBox.height > 0
    ? Math.min(1, drawn.width / scale / viewBox.width, drawn.height / scale / viewBox.height) : 1;
}
function overflowing() {
  const found = [];
  document.querySelectorAll('div.marpit > svg').forEach((svg, index) => {
    const section = svg.querySelector('section');
    const frame = section.getBoundingClientRect();
    const scale = frame.width / 1280;
    const problems = [];
    for (const element of section.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.bottom > frame.bottom + scale || box.right > frame.right + scale) {
        problems.push(element.tagName.toLowerCase() + ' ends ' +
          Math.round(Math.max(box.bottom - frame.bottom, box.right - frame.right) / scale) + 'px outside');
        break;
      }
    }
    // A box the slide squeezed shorter than its content: Marp's section is a
    // column of flex items, so a table or code block too tall for what is
    // left shrinks and hides its last rows inside the frame, where the
    // check above cannot see them.
    for (const element of section.querySelectorAll('table, pre, marp-pre, ul, ol, p, blockquote')) {
      const hidden = element.scrollHeight - element.clientHeight;
      if (element.clientHeight > 0 && hidden > 2) {
        problems.push(element.tagName.toLowerCase() + ' is clipped: ' + Math.round(hidden / scale) + 'px of it hidden inside the frame');
        break;
      }
    }
    // A picture's text, as drawn on the slide: an SVG's font size scaled by
    // how wide it is drawn against its own width.
    section.querySelectorAll('img').forEach((img) => {
      const source = img.getAttribute('src') || '';
      if (!source.startsWith('data:image/svg+xml;base64,')) return;
      const svgText = atob(source.slice('data:image/svg+xml;base64,'.length));
      const root = svgText.match(/<svg\\b[^>]*>/);
      const width = root && root[0].match(/\\bwidth="([0-9.]+)"/);
      const font = root && root[0].match(/\\bfont-size="([0-9.]+)"/);
      if (!width || !font) return;
      const drawn = parseFloat(font[1]) * img.getBoundingClientRect().width / scale / parseFloat(width[1]);
      if (drawn < MIN_PICTURE_PX) {
        problems.push('a picture\\'s text is ' + drawn.toFixed(1) + 'px on the slide (at least ' + MIN_PICTURE_PX + 'px): draw it wider, or show fewer lanes or rows');
      }
    });
    // Every text on the slide: big enough, and dark enough on what is
    // behind it. Code blocks are measured below, as Marp shrinks them.
    const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
    let small = null;
    let faint = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      if (!node.textContent.trim() || element.getBoundingClientRect().width === 0) continue;
      const style = getComputedStyle(element);
      const block = element.closest('marp-pre, pre');
      const size = parseFloat(style.fontSize) * (block ? shrinkOf(element.closest('marp-pre'), scale) : 1);
      if (!block && size < MIN_TEXT_PX - 0.05 && (!small || size < small.size)) small = { size, text: node.textContent.trim() };
      const ratio = contrast(style.color, background(element));
      if (ratio < MIN_CONTRAST && (!faint || ratio < faint.ratio)) faint = { ratio, text: node.textContent.trim(), color: style.color };
    }
    if (small) problems.push('text is ' + small.size.toFixed(1) + 'px (at least ' + MIN_TEXT_PX + 'px): "' + small.text.slice(0, 40) + '"');
    if (faint) problems.push('text is ' + faint.ratio.toFixed(2) + ':1 against its background (at least ' + MIN_CONTRAST + ':1): "' + faint.text.slice(0, 40) + '" in ' + faint.color);
    // Marp shrinks code wider than its block until it fits: too far, and
    // the room cannot read it.
    section.querySelectorAll('pre, marp-pre').forEach((pre) => {
      // Scaled to fit its width or its height, whichever is tighter: a tall
      // block shrinks as much as a wide one.
      const size = parseFloat(getComputedStyle(pre).fontSize) * shrinkOf(pre, scale);
      if (size < MIN_CODE_PX) {
        const longest = Math.max(...pre.textContent.split('\\n').map((line) => line.length));
        const lines = pre.textContent.replace(/\\n$/, '').split('\\n').length;
        problems.push('code is shrunk to ' + size.toFixed(1) + 'px to fit (at least ' + MIN_CODE_PX + 'px): ' + lines + ' lines, the longest ' + longest + ' characters');
      }
    });
    // The characters beyond ASCII the slide shows, text and pictures alike:
    // the browser's side cannot tell a glyph from the empty box drawn for a
    // character no font has, so Node asks the system's fonts (below).
    const chars = new Set();
    const shown = [section.textContent];
    section.querySelectorAll('img').forEach((img) => {
      const source = img.getAttribute('src') || '';
      if (source.startsWith('data:image/svg+xml;base64,')) {
        shown.push(new TextDecoder().decode(Uint8Array.from(atob(source.slice(26)), (c) => c.charCodeAt(0))));
      }
    });
    for (const text of shown) for (const char of text) if (char.codePointAt(0) > 0x7e) chars.add(char);
    found.push({ slide: index + 1, problems, chars: [...chars] });
  });
  return JSON.stringify(found);
}
// Whether Marp has fitted every code block: its auto-scaling sets the
// viewBox of the block's SVG from a ResizeObserver, after some frames.
function fitted() {
  return [...document.querySelectorAll('marp-pre')].every((pre) => {
    const fitter = pre.shadowRoot && pre.shadowRoot.querySelector('marp-auto-scaling');
    const svg = fitter && fitter.shadowRoot && fitter.shadowRoot.querySelector('svg');
    return svg && svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width > 0;
  });
}
// A pause. The browser runs on virtual time, which jumps ahead whenever
// nothing is pending: a timer keeps it stepping, and Chromium is told to
// finish each frame before time moves on (see check()).
const frame = () => new Promise((resolve) => setTimeout(resolve, 100));
// Measured once the fonts are in, every code block is fitted, and the
// layout no longer changes: the same result three frames in a row.
addEventListener('load', async () => {
  await document.fonts.ready;
  for (let round = 0; round < 100 && !fitted(); round++) await frame();
  let last = overflowing();
  let same = 0;
  for (let round = 0; round < 50 && same < 2; round++) {
    await frame();
    const now = overflowing();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  document.body.setAttribute('data-overflow', fitted() ? last : JSON.stringify([{ slide: 0, problems: ['Marp never fitted the code blocks'] }]));
});
</script>`;

/// Opens each rendered deck in headless Chromium at 1280x720, reports every
/// slide whose content leaves its frame, and saves a screenshot of it.
/// Whether a font on this machine has a glyph for `char`: fontconfig's
/// answer, which is where Chromium looks on Linux for a character its fonts
/// lack. A character no font has is drawn as an empty box.
const glyphs = new Map();
function hasGlyph(char) {
  // Spaces and marks that draw nothing need no glyph.
  if (/[\s\u200b-\u200f\u2028-\u202f\ufe0e\ufe0f]/u.test(char)) return true;
  if (!glyphs.has(char)) {
    const hex = char.codePointAt(0).toString(16);
    let fonts = '';
    try {
      fonts = execFileSync('fc-list', [`:charset=${hex}`, 'family'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      fonts = 'unknown';  // No fontconfig: not this check's to say.
    }
    glyphs.set(char, fonts.trim().length > 0);
  }
  return glyphs.get(char);
}

function check(chromium, outDir, pages) {
  let failed = 0;
  // Root in a container: no sandbox for the browser itself, and no small /dev/shm.
  const flags = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars',
    '--window-size=1280,720', '--run-all-compositor-stages-before-draw',
  ];
  // A deck that passed before, with this page, browser and fonts, is not opened again.
  const kept = require('./kept.cjs')(chromium, __filename);
  for (const page of pages) {
    const name = path.basename(page, '.html');
    const html = fs.readFileSync(page, 'utf8');
    const before = kept.passed(html);
    if (before) { console.log(`${name}: ${before} (unchanged since it last passed)`); continue; }
    const probe = path.join(outDir, `${name}.probe.html`);
    const allSlides = (page) => page.replace(/<html lang="([^"]+)">/, '<html lang="$1" data-all-slides>');
    fs.writeFileSync(probe, allSlides(html).replace('</body>', measure + '</body>'));
    const dom = execFileSync(chromium, [...flags, '--virtual-time-budget=120000', '--dump-dom', probe], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20,
    });
    fs.unlinkSync(probe);
    const match = dom.match(/data-overflow="([^"]*)"/);
    if (!match) { console.log(`${name}: the browser did not measure it`); failed++; continue; }
    const measured = JSON.parse(match[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
    for (const slide of measured) {
      const missing = slide.chars.filter((char) => !hasGlyph(char));
      if (missing.length) {
        slide.problems.push('no font here has ' + missing.map((c) => '"' + c + '" (U+' +
          c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0') + ')').join(', ') +
          ': it shows as an empty box; write it otherwise, or install a font that has it in scripts/install-tools.sh');
      }
    }
    const found = measured.filter((slide) => slide.problems.length);
    if (!found.length) {
      console.log(`${name}: every slide fits`);
      kept.pass(html, 'every slide fits');
      continue;
    }
    for (const { slide, problems } of found) {
      failed++;
      // The slide alone, at the frame's size, for the screenshot.
      const single = path.join(outDir, `${name}.slide-${slide}.html`);
      fs.writeFileSync(single, allSlides(fs.readFileSync(page, 'utf8')).replace('</style></head>',
        `div.marpit > svg:not(:nth-of-type(${slide})) { display: none; } html, body { overflow: hidden; }</style></head>`));
      const shot = path.join(outDir, `${name}.slide-${slide}.png`);
      execFileSync(chromium, [...flags, `--screenshot=${shot}`, single], { stdio: 'ignore' });
      fs.unlinkSync(single);
      console.log(`${name}, slide ${slide}: ${problems.join('; ')} (screenshot: ${shot})`);
    }
  }
  return failed;
}

/// Opens `page` (a rendered deck) at slide `start` in headless Chromium and
/// drives its slideshow: which slides show, where → and End go, and what the
/// presenter view shows for the slide after. Prints one line; returns
/// whether the slideshow behaved.
function navigate(chromium, page, start) {
  const probe = page.replace(/\.html$/, '.navigate.html');
  const script = `<script>
addEventListener('load', async () => {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
  const shown = () => [...document.querySelectorAll('div.marpit > svg')].map((svg, i) => [svg, i + 1])
    .filter(([svg]) => getComputedStyle(svg).display !== 'none').map(([, n]) => n);
  const fits = () => { const box = document.querySelector('div.marpit > svg.current').getBoundingClientRect();
    return box.left >= 0 && box.top >= 0 && box.right <= innerWidth + 1 && box.bottom <= innerHeight + 1; };
  const press = async (key) => { dispatchEvent(new KeyboardEvent('keydown', { key })); await pause(); };
  await pause();
  const result = { first: shown(), fits: fits(), title: document.title };
  await press('ArrowRight'); result.right = [location.hash, shown()];
  await press('End'); result.end = [location.hash, shown()];
  await press('ArrowLeft'); result.left = [location.hash, shown()];
  result.presenter = window.slideshow.presenterText(${start} + 1);
  result.count = window.slideshow.count;
  document.body.setAttribute('data-navigation', JSON.stringify(result));
});
</script>`;
  fs.writeFileSync(probe, fs.readFileSync(page, 'utf8').replace(/<\/body>(?![\s\S]*<\/body>)/, script + '</body>'));
  const dom = execFileSync(chromium, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1280,720',
    '--virtual-time-budget=20000', '--dump-dom', `file://${path.resolve(probe)}#${start}`,
  ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  fs.unlinkSync(probe);
  const match = dom.match(/data-navigation="([^"]*)"/);
  const name = path.basename(page, '.html');
  if (!match) { console.log(`${name}: the slideshow did not run`); return false; }
  const r = JSON.parse(match[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
  const n = r.count;
  const ok = JSON.stringify(r.first) === JSON.stringify([start]) && r.fits
    && JSON.stringify(r.right) === JSON.stringify([`#${start + 1}`, [start + 1]])
    && JSON.stringify(r.end) === JSON.stringify([`#${n}`, [n]])
    && JSON.stringify(r.left) === JSON.stringify([`#${n - 1}`, [n - 1]])
    && r.presenter.slide === (/<html lang="zh-Hans"/.test(fs.readFileSync(page, 'utf8'))
      ? `第 ${start + 1} 页，共 ${n} 页` : `Slide ${start + 1} of ${n}`)
    && r.title.endsWith(` · ${start}/${n}`);
  console.log(`${name}: slideshow ${ok ? 'works' : 'broken'}: #${start} shows ${JSON.stringify(r.first)}${r.fits ? ', fitted' : ', not fitted'}; → ${r.right[0]}; End ${r.end[0]}; ← ${r.left[0]}; presenter: "${r.presenter.slide}", notes "${r.presenter.notes.slice(0, 40).replace(/\s+/g, ' ')}", "${r.presenter.next.slice(0, 40)}"`);
  return ok;
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'render' && rest.length >= 3) {
  try {
    render(rest[0], rest[1], rest.slice(2));
  } catch (error) {
    // A deck's own problem (a missing picture, a resource from the network):
    // one line that names the deck, not a stack trace.
    console.error(`render-slides: ${error.message}`);
    process.exitCode = 1;
  }
} else if (command === 'check' && rest.length >= 3) {
  let failed = check(rest[0], rest[1], rest.slice(2));
  // The slideshow is the same script in every deck: driven in the first.
  if (!navigate(rest[0], rest[2], 1)) failed++;
  process.exitCode = failed === 0 ? 0 : 1;
} else {
  console.error('usage: marp.cjs render <engine-dir> <out-dir> <deck.md>... | check <chromium> <out-dir> <deck.html>...');
  process.exitCode = 64;
}
