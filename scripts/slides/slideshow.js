// The rendered deck as a slideshow, offline, with no library: one slide at a
// time, fitted to the window; → ↓ Space PageDown for the next slide, ← ↑
// PageUp for the one before, Home and End; the slide's number in the URL
// (deck.html#7), so a reload or a link opens that slide. P opens the
// presenter view: the slide's notes, the next slide's heading, a timer and
// the slide's number, following the slideshow (a key pressed in either
// window moves both). Printing (Ctrl-P / ⌘P) prints every slide.
(function () {
  'use strict';
  const slides = [...document.querySelectorAll('div.marpit > svg')];
  const notes = JSON.parse(document.getElementById('speaker-notes').textContent);
  // The slide check measures, and screenshots, every slide at once.
  if (!slides.length || document.documentElement.hasAttribute('data-all-slides')) return;
  document.body.classList.add('slideshow');
  let presenter = null;
  let started = null;

  const number = () => {
    const n = parseInt(location.hash.slice(1), 10);
    return Number.isInteger(n) && n >= 1 && n <= slides.length ? n : 1;
  };
  const heading = (n) => {
    const found = slides[n - 1] && slides[n - 1].querySelector('h1, h2');
    return found ? found.textContent : '';
  };

  function show() {
    const n = number();
    slides.forEach((slide, index) => slide.classList.toggle('current', index === n - 1));
    document.title = document.title.replace(/ · \d+\/\d+$/, '') + ` · ${n}/${slides.length}`;
    updatePresenter();
  }

  function go(n) {
    const target = Math.min(Math.max(n, 1), slides.length);
    if (target !== number()) location.hash = String(target);
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const n = number();
    switch (event.key) {
      case 'ArrowRight': case 'ArrowDown': case 'PageDown': case ' ': go(n + 1); break;
      case 'ArrowLeft': case 'ArrowUp': case 'PageUp': go(n - 1); break;
      case 'Home': go(1); break;
      case 'End': go(slides.length); break;
      case 'p': case 'P': openPresenter(); break;
      default: return;
    }
    event.preventDefault();
  }

  // The presenter view's page: what it shows for slide `n`, as text.
  function presenterText(n) {
    // The presenter's words in the deck's language (a Chinese deck's page is lang="zh-Hans").
    const chinese = document.documentElement.lang === 'zh-Hans';
    return chinese ? {
      slide: `第 ${n} 页，共 ${slides.length} 页`,
      notes: notes[n - 1] || '（没有备注）',
      next: n < slides.length ? `下一页：${heading(n + 1)}` : '下一页：结束',
    } : {
      slide: `Slide ${n} of ${slides.length}`,
      notes: notes[n - 1] || '(no notes)',
      next: n < slides.length ? `Next: ${heading(n + 1)}` : 'Next: the end',
    };
  }

  // The presenter view's whole page for slide `n`, as the window shows it
  // when it opens (the slideshow then keeps its words and timer current).
  function presenterHTML(n) {
    const text = presenterText(n);
    const escape = (value) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    return `<!DOCTYPE html><html lang="${document.documentElement.lang}"><head><meta charset="utf-8"><title>Presenter: ${escape(document.title)}<\/title>
<style>
  body { font: 24px/1.45 system-ui, sans-serif; margin: 24px; background: #fff; color: #1f2328; }
  header { display: flex; justify-content: space-between; font-weight: bold; font-size: 28px; }
  #timer { font-variant-numeric: tabular-nums; }
  #notes { white-space: pre-wrap; margin: 18px 0; }
  #next { color: #57606a; border-top: 1px solid #d0d7de; padding-top: 12px; }
<\/style><\/head><body>
<header><span id="slide">${escape(text.slide)}</span><span id="timer">0:00</span></header>
<div id="notes">${escape(text.notes)}</div><div id="next">${escape(text.next)}</div><\/body><\/html>`;
  }

  function openPresenter() {
    if (presenter && !presenter.closed) { presenter.focus(); return; }
    presenter = window.open('', 'presenter', 'width=900,height=700');
    if (!presenter) return;
    started = Date.now();
    presenter.document.open();
    presenter.document.write(presenterHTML(number()));
    presenter.document.close();
    presenter.addEventListener('keydown', onKey);
    presenter.setInterval(() => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      const timer = presenter.document.getElementById('timer');
      if (timer) timer.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
    }, 500);
    updatePresenter();
  }

  function updatePresenter() {
    if (!presenter || presenter.closed) return;
    const text = presenterText(number());
    for (const id of ['slide', 'notes', 'next']) {
      const element = presenter.document.getElementById(id);
      if (element) element.textContent = text[id];
    }
  }

  window.slideshow = { go, number, presenterText, presenterHTML, count: slides.length };
  addEventListener('keydown', onKey);
  addEventListener('hashchange', show);
  show();
})();
