/** A list request's paging (api.md General rule 6): after `id`, `take` items past `skip`, in `sort` order. */
export interface ListParams {
  id?: string;
  take: number;
  skip: number;
  sort: 'asc' | 'desc';
}
