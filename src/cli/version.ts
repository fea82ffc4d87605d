/** `hnsim version`: the package version and the host profiles it simulates. */
import { readFileSync } from 'node:fs';
import { isJsonObject } from '../core/json.js';
import { DEFAULT_PROFILE, PROFILES, formatVersion } from '../hns/versions.js';
import { table } from '../render/table.js';
import { useColor } from './progress.js';
import { EXIT_OK, parse, readFormat, write, type CliIo } from './args.js';

export const VERSION_USAGE = `Usage: hnsim version [--format text|json]

Print the hnsim package version and the host profiles (HNS versions) it simulates.

Options:
  --format FORMAT   text (default) or json
  -h, --help        Show this help

Exit status: 0; 2 for a bad command line.
`;

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as unknown;
    return isJsonObject(pkg) && typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export async function cmdVersion(args: string[], io: CliIo): Promise<number> {
  const { flags } = parse('version', args, 0);
  if (flags.help) return write(io.stdout, VERSION_USAGE).then(() => EXIT_OK);
  const format = readFormat('version', flags);
  const version = packageVersion();
  const profiles = Object.values(PROFILES);
  if (format === 'json') {
    const doc = {
      hnsim: version,
      defaultProfile: DEFAULT_PROFILE,
      profiles: profiles.map((p) => ({
        name: p.name,
        description: p.description,
        hns: formatVersion(p.version),
        schema: formatVersion(p.schema),
        build: p.build,
      })),
    };
    await write(io.stdout, JSON.stringify(doc, null, 2) + '\n');
    return EXIT_OK;
  }
  const rows = profiles.map((p) => [
    p.name + (p.name === DEFAULT_PROFILE ? ' *' : ''),
    formatVersion(p.version),
    formatVersion(p.schema),
    String(p.build),
    p.description,
  ]);
  const text = [
    `hnsim ${version}`,
    '',
    'Host profiles (--profile NAME, or an HNS version such as 13.1; * = default):',
    table(['Profile', 'HNS', 'Schema', 'Build', 'Description'], rows, { color: useColor(io) }),
    '',
  ].join('\n');
  await write(io.stdout, text);
  return EXIT_OK;
}
