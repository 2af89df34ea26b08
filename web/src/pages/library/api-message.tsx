/**
 * An API message with its field paths (`[0].name`) kept left to right: inside an Arabic
 * sentence the bidi algorithm would otherwise show `name.[0]`.
 */
export function ApiMessage({ text }: { text: string }) {
  const parts = text.split(/(\[\d+\](?:\.[A-Za-z]+)*)/);
  return (
    <>
      {parts.map((p, i) =>
        i % 2 ? (
          <bdi key={i} dir="ltr">
            {p}
          </bdi>
        ) : (
          p
        ),
      )}
    </>
  );
}
