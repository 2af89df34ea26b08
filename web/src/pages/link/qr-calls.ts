/**
 * The QR designer's calls through the typed client: each answers its data or throws the API's
 * error body (worded by errorText).
 */
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import type { Design } from './qr-design.js';

export type Logo = components['schemas']['QrLogo'];
type Link = components['schemas']['Link'];

function dataOf<T>({ data, error }: { data?: T; error?: unknown }): T {
  if (error !== undefined || data === undefined) throw error;
  return data;
}

export const listLogos = async (): Promise<Logo[]> => dataOf(await api.GET('/api/qr-logos'));

/** The file is the body, as it is; its type says PNG or SVG (by its name when the browser does not know). */
export async function uploadLogo(file: File): Promise<Logo> {
  const type = file.type || (/\.svg$/i.test(file.name) ? 'image/svg+xml' : 'image/png');
  return dataOf(
    await api.POST('/api/qr-logos', { body: file as never, bodySerializer: (body: unknown) => body as BodyInit, headers: { 'content-type': type } }),
  );
}

/**
 * A logo's PNG as a data: URL for an <img>: the route needs the workspace header, which an
 * <img> cannot send, and the dashboard's CSP allows data: images (not blob:).
 */
export async function logoDataUrl(id: string): Promise<string> {
  const blob = dataOf(await api.GET('/api/qr-logos/{id}', { params: { path: { id } }, parseAs: 'blob' })) as Blob;
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

export const saveDesign = async (linkId: string, qrDesign: Design): Promise<Link> =>
  dataOf(await api.PUT('/api/links', { body: [{ id: linkId, qrDesign }] as never }))[0]!;
