/**
 * Every shell block of the documentation takes the service's base URL from one variable, SVC,
 * set by its first line `SVC=${SVC:-http://localhost:5000}` (issue 39: port 5000 is macOS's
 * AirPlay receiver's). The blocks a test runs are refused by `runReadmeScript` when they name
 * the port; this covers the blocks no test runs too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles } from '../support/markdown-links.js';
import { baseUrlLine, shellBlocks } from '../support/readme.js';
import { repoRoot } from '../support/server.js';

const documents = ['README.md', ...markdownFiles(repoRoot, 'docs'), ...markdownFiles(repoRoot, 'plugins')];

/** The blocks of a document that name http://localhost:5000 other than in a leading SVC line. */
function blocksNamingThePort(markdown: string): string[] {
  return shellBlocks(markdown).filter((block) => {
    const rest = block.startsWith(`${baseUrlLine}\n`) ? block.slice(baseUrlLine.length + 1) : block;
    return rest.includes('http://localhost:5000');
  });
}

describe('shell blocks in the documentation', () => {
  it.each(documents)('%s: the base URL comes from SVC', (file) => {
    expect(blocksNamingThePort(readFileSync(join(repoRoot, file), 'utf8'))).toEqual([]);
  });

  it('the check finds a block that names the port, and passes one that starts with the SVC line', () => {
    const fence = '```';
    expect(blocksNamingThePort(`${fence}sh\ncurl http://localhost:5000/connect/token\n${fence}\n`)).toHaveLength(1);
    expect(blocksNamingThePort(`${fence}sh\ncurl $SVC/x\nSVC=\${SVC:-http://localhost:5000}\ncurl http://localhost:5000/x\n${fence}\n`)).toHaveLength(1);
    expect(blocksNamingThePort(`${fence}sh\n${baseUrlLine}\ncurl $SVC/connect/token\n${fence}\n`)).toEqual([]);
  });
});
