/**
 * The wireserver's interface document as `azure-vnet-ipam` decodes it: Go's `encoding/xml`
 * `Decoder.Decode` into ACN `common.XmlDocument` (v1.8.12 `common/utils.go`): the root must be
 * `<Interfaces>`; `<Interface MacAddress IsPrimary>` children hold `<IPSubnet Prefix>` elements
 * holding `<IPAddress Address IsPrimary>`; element and attribute names match exactly, anything else
 * is skipped, a boolean attribute is `strconv.ParseBool` of its trimmed text (empty: false).
 * Declarations, comments, processing instructions and text are skipped. A malformed document
 * throws: the IPAM source only logs the failure and keeps its stored state.
 */

export interface WireIPAddress {
  readonly address: string;
  readonly isPrimary: boolean;
}

export interface WireSubnet {
  readonly prefix: string;
  readonly addresses: readonly WireIPAddress[];
}

export interface WireInterface {
  readonly macAddress: string;
  readonly isPrimary: boolean;
  readonly subnets: readonly WireSubnet[];
}

interface Element {
  readonly name: string;
  readonly attrs: ReadonlyMap<string, string>;
  readonly children: Element[];
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescape(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    const v = ENTITIES[e];
    if (v === undefined) throw new Error(`XML syntax error: invalid character entity ${whole}`);
    return v;
  });
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/;
/** What the reader skips, by how it opens and closes (the comment before the other `<!`). */
const SKIPPED: readonly (readonly [string, string])[] = [
  ['<?', '?>'],
  ['<!--', '-->'],
  ['<!', '>'],
];
const ATTR = /^\s+([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"<]*)"|'([^'<]*)')/;

/** The element tree of a document (its root element). */
function parseTree(text: string): Element {
  const stack: Element[] = [];
  let root: Element | undefined;
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) break;
    i = lt;
    // a processing instruction or declaration, a comment, a DOCTYPE: skipped to its end
    const skip = SKIPPED.find(([open]) => text.startsWith(open, i));
    if (skip) {
      const end = text.indexOf(skip[1], i);
      if (end < 0) throw new Error('XML syntax error: unexpected EOF');
      i = end + skip[1].length;
      continue;
    }
    if (text.startsWith('</', i)) {
      const m = NAME.exec(text.slice(i + 2));
      const end = text.indexOf('>', i);
      const open = stack.pop();
      if (!m || end < 0 || !open || open.name !== m[0]) {
        throw new Error(`XML syntax error: unexpected end element </${m?.[0] ?? ''}>`);
      }
      i = end + 1;
      continue;
    }
    const m = NAME.exec(text.slice(i + 1));
    if (!m) throw new Error('XML syntax error: expected element name after <');
    let rest = text.slice(i + 1 + m[0].length);
    const attrs = new Map<string, string>();
    for (let a = ATTR.exec(rest); a; a = ATTR.exec(rest)) {
      attrs.set(a[1]!, unescape(a[3] ?? a[4] ?? ''));
      rest = rest.slice(a[0].length);
    }
    const close = /^\s*(\/?)>/.exec(rest);
    if (!close) throw new Error(`XML syntax error: malformed start element <${m[0]}>`);
    const el: Element = { name: m[0], attrs, children: [] };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(el);
    else if (root) throw new Error('XML syntax error: more than one root element');
    else root = el;
    if (close[1] !== '/') stack.push(el);
    i = text.length - rest.length + close[0].length;
  }
  if (!root) throw new Error('EOF');
  if (stack.length > 0) throw new Error('XML syntax error: unexpected EOF');
  return root;
}

/** `strconv.ParseBool` over the trimmed attribute (Go's xml copyValue; empty is false). */
function xmlBool(el: Element, name: string): boolean {
  const v = (el.attrs.get(name) ?? '').trim();
  if (v === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

/** `xml.NewDecoder(body).Decode(&doc)` for `common.XmlDocument`: its interfaces in document order. */
export function decodeInterfaceDocument(text: string): WireInterface[] {
  const root = parseTree(text);
  if (root.name !== 'Interfaces') {
    throw new Error(`expected element type <Interfaces> but have <${root.name}>`);
  }
  return root.children
    .filter((c) => c.name === 'Interface')
    .map((i) => ({
      macAddress: i.attrs.get('MacAddress') ?? '',
      isPrimary: xmlBool(i, 'IsPrimary'),
      subnets: i.children
        .filter((c) => c.name === 'IPSubnet')
        .map((s) => ({
          prefix: s.attrs.get('Prefix') ?? '',
          addresses: s.children
            .filter((c) => c.name === 'IPAddress')
            .map((a) => ({ address: a.attrs.get('Address') ?? '', isPrimary: xmlBool(a, 'IsPrimary') })),
        })),
    }));
}
