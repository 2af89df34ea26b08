import { createHash } from 'node:crypto';

/**
 * operations.md §6 and §19: the script a site's pages load. Without data attributes it does what
 * it always did: reads the click id from the page URL, keeps it 90 days in a first-party cookie of
 * the same name (SameSite=Lax, Secure on https), and exposes window.linktrail.getClickId().
 * With `data-publishable-key` it also turns a partner's `?via=` into a click (POST
 * /api/track/click, on `data-api-host`, default the script's own origin), and offers
 * trackLead(body) / trackSale(body). Options: `data-query-params` (the via parameter's names,
 * comma-separated; default via), `data-attribution` (last-click: a new click id replaces the
 * kept one; first-click: the first one stays), `data-attribution-days` (default 90),
 * `data-cookie-domain` (to share it with subdomains), `data-outbound-domains` (links and forms
 * to these domains carry the click id). No dependency; a test keeps it under 3 KB gzipped.
 */
export function attributionScript(param: string): { body: string; etag: string } {
  const p = JSON.stringify(param);
  const body = `/* Linktrail attribution (MIT) */
(function () {
  var w = window, d = document, P = ${p};
  if (w.linktrail && w.linktrail.v === 2) return;
  var s = d.currentScript, L = w.location;
  function opt(n) { var v = s && s.getAttribute('data-' + n); return v == null ? (w.linktrailOptions || {})[n] : v; }
  function list(v) { return String(v || '').split(',').map(function (x) { return x.trim().toLowerCase(); }).filter(Boolean); }
  var key = opt('publishable-key');
  var api = String(opt('api-host') || (s && s.src ? new URL(s.src, L.href).origin : '')).replace(/\\/+$/, '');
  var names = list(opt('query-params') || 'via');
  var first = opt('attribution') === 'first-click';
  var days = Number(opt('attribution-days')) || 90;
  var domain = opt('cookie-domain');
  var out = list(opt('outbound-domains'));
  function read() {
    var m = d.cookie.match(new RegExp('(?:^|; )' + P + '=([^;]*)'));
    return m ? decodeURIComponent(m[1]) : null;
  }
  function keep(v) {
    if (!v || (first && read())) return;
    d.cookie = P + '=' + encodeURIComponent(v) + '; Max-Age=' + Math.round(days * 86400) + '; Path=/; SameSite=Lax' +
      (domain ? '; Domain=' + domain : '') + (L.protocol === 'https:' ? '; Secure' : '');
    mark();
  }
  function leads(u) {
    try { var h = new URL(u, L.href).hostname.toLowerCase(); } catch (e) { return false; }
    return h !== L.hostname && out.some(function (o) { return h === o || h.slice(-o.length - 1) === '.' + o; });
  }
  function mark(el) {
    var id = read();
    if (!id || !out.length) return;
    var els = el ? [el] : d.querySelectorAll('a[href],form[action]');
    for (var i = 0; i < els.length; i++) {
      var e = els[i];
      if (e.tagName === 'A' && leads(e.href)) { var u = new URL(e.href); u.searchParams.set(P, id); e.href = u.href; }
      if (e.tagName === 'FORM' && leads(e.action)) {
        var f = e.querySelector('input[name="' + P + '"]');
        if (!f) { f = d.createElement('input'); f.type = 'hidden'; f.name = P; e.appendChild(f); }
        f.value = id;
      }
    }
  }
  function post(path, body) {
    if (!key) return Promise.reject(new Error('linktrail: data-publishable-key is missing'));
    return fetch(api + path, {
      method: 'POST', keepalive: true, body: JSON.stringify(body),
      headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' }
    }).then(function (r) { return r.json().then(function (j) { if (!r.ok) throw j; return j; }); });
  }
  function withClick(body) { var b = {}, k; for (k in body) b[k] = body[k]; if (b.clickId == null) b.clickId = read() || ''; return b; }
  var q = new URLSearchParams(L.search);
  try { keep(q.get(P)); } catch (e) {}
  var via = null;
  for (var i = 0; i < names.length && !via; i++) via = q.get(names[i]);
  var ready = via && key
    ? post('/api/track/click', { via: via, url: L.href, referrer: d.referrer || undefined }).then(function (r) { keep(r.clickId); return r; }, function () { return null; })
    : Promise.resolve(null);
  if (out.length) {
    if (d.readyState === 'loading') d.addEventListener('DOMContentLoaded', function () { mark(); }); else mark();
    // Links and forms added later get the click id as they are used.
    d.addEventListener('click', function (e) { var a = e.target && e.target.closest && e.target.closest('a[href]'); if (a) mark(a); }, true);
    d.addEventListener('submit', function (e) { if (e.target && e.target.tagName === 'FORM') mark(e.target); }, true);
  }
  w.linktrail = {
    v: 2,
    ready: ready,
    getClickId: read,
    trackLead: function (body) { return post('/api/track/lead/client', withClick(body || {})); },
    trackSale: function (body) { return post('/api/track/sale/client', withClick(body || {})); }
  };
})();
`;
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}
