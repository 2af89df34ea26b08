import { createHash } from 'node:crypto';

/**
 * operations.md §6: reads the click id from the page URL, keeps it 90 days in a first-party
 * cookie of the same name, and exposes window.linktrail.getClickId().
 */
export function attributionScript(param: string): { body: string; etag: string } {
  const p = JSON.stringify(param);
  const body = `/* Linktrail attribution (MIT) */
(function () {
  var p = ${p};
  function read() {
    var m = document.cookie.match(new RegExp('(?:^|; )' + p + '=([^;]*)'));
    return m ? decodeURIComponent(m[1]) : null;
  }
  try {
    var v = new URLSearchParams(window.location.search).get(p);
    if (v) document.cookie = p + '=' + encodeURIComponent(v) + '; Max-Age=7776000; Path=/; SameSite=Lax' +
      (window.location.protocol === 'https:' ? '; Secure' : '');
  } catch (e) {}
  window.linktrail = { getClickId: read };
})();
`;
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}
