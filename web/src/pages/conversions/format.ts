/** Start and end of local dates (YYYY-MM-DD) as instants, so the range is the viewer's days. */
export function startOfDay(date: string): string {
  return new Date(`${date}T00:00:00`).toISOString();
}
export function endOfDay(date: string): string {
  return new Date(`${date}T23:59:59.999`).toISOString();
}
