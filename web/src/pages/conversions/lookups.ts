import { api } from '../../api/client.js';

/** A link's short URL: the URL, null when the workspace has no such (active) link, undefined when the request failed. */
export type ShortUrl = string | null | undefined;

const shortUrls = new Map<string, Promise<ShortUrl>>();

/**
 * The short URLs of the given links. An event names its link by id only, and the API finds
 * links one id at a time, so each distinct link costs one request, once per page load
 * (a failure is asked again next time).
 */
export function shortUrlsOf(workspaceId: string, linkIds: string[]): Promise<Map<string, ShortUrl>> {
  const ids = [...new Set(linkIds)];
  return Promise.all(
    ids.map((id) => {
      const key = `${workspaceId}/${id}`;
      let found = shortUrls.get(key);
      if (!found) {
        found = api.GET('/api/links', { params: { query: { id } } }).then(
          ({ data }) => (data ? (data[0]?.shortUrl ?? null) : undefined),
          () => undefined,
        );
        void found.then((v) => v === undefined && shortUrls.delete(key));
        shortUrls.set(key, found);
      }
      return found.then((url) => [id, url] as const);
    }),
  ).then((pairs) => new Map(pairs));
}
