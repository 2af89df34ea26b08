/** Asks the app to read /api/me again (a renamed workspace or person shows in the header). Apart from session.ts, which the server's tests read without the DOM. */
export function meChanged(): void {
  dispatchEvent(new Event('linktrail:me-changed'));
}
