// Keeps the pages headless Chromium passed, so that a page it passed before
// is not opened again while nothing its result depends on changed: the
// page's bytes, the probe that measures it (the calling script's source),
// the browser (its version line) and the fonts it lays text out with
// (fontconfig's list). Only passes are kept; a failing page is opened every
// time, and so is every page on a fresh clone.
//
//   const kept = require('./kept.cjs')(chromium, __filename);
//   const verdict = kept.passed(html);     // what it said of the page, or null
//   ...open the page...; kept.pass(html, verdict);  // without the page's name
//
// The results live in .build/browser-checks/, or BROWSER_CHECKS_FOLDER (one
// small file per page result, named by the SHA-256 of everything above).
// BROWSER_CHECKS_FRESH=1 opens every page whatever was kept.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { execFileSync } = require('child_process');

/// The output of a command, or '' when it cannot run.
function output(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30000 });
  } catch {
    return '';
  }
}

module.exports = function kept(chromium, probeSource) {
  const folder = process.env.BROWSER_CHECKS_FOLDER || path.join(__dirname, '..', '..', '.build', 'browser-checks');
  const fresh = process.env.BROWSER_CHECKS_FRESH === '1';
  // Without a version line or a font list, nothing is kept: a page's result
  // would not say what it was measured with.
  const browser = output(chromium, ['--version']).trim();
  const fonts = output('fc-list', []).split('\n').sort().join('\n');
  const usable = !fresh && browser !== '' && fonts !== '';
  const context = usable
    ? crypto.createHash('sha256').update(fs.readFileSync(probeSource)).update('\0' + browser + '\0' + fonts).digest('hex')
    : '';
  // Marp names each scoped style with a random word of 8 letters and
  // digits, new at every render: the names are numbered in their order
  // instead, the same every time.
  const canonical = (html) => {
    const names = new Map();
    return html.replace(/data-marpit-scope-[A-Za-z0-9]{8}(?![A-Za-z0-9])/g, (name) => {
      if (!names.has(name)) names.set(name, `data-marpit-scope-${names.size + 1}`);
      return names.get(name);
    });
  };
  const key = (html) =>
    crypto.createHash('sha256').update(context).update('\0').update(canonical(html)).digest('hex');
  return {
    /// What was said of `html` when it last passed with this probe,
    /// browser and fonts; null when it must be opened.
    passed(html) {
      if (!usable) return null;
      try {
        return fs.readFileSync(path.join(folder, key(html)), 'utf8');
      } catch {
        return null;
      }
    },
    /// Keeps that `html` passed, with what was said of it (`verdict`).
    pass(html, verdict) {
      if (!usable) return;
      fs.mkdirSync(folder, { recursive: true });
      const file = path.join(folder, key(html));
      fs.writeFileSync(file + '.tmp', verdict);
      fs.renameSync(file + '.tmp', file);
    },
  };
};
