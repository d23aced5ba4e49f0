/**
 * Every internal link of the documentation leads somewhere (issue 39): each relative link of the
 * README, SECURITY.md, docs/ and the plugins' READMEs names a file that exists, and each `#anchor`
 * a heading of that file, by GitHub's anchor rules. Moving a section or renaming a heading fails
 * here until the links follow.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks, headingAnchors, linkTargets, markdownFiles } from '../support/markdown-links.js';
import { repoRoot } from '../support/server.js';

const documents = ['README.md', 'SECURITY.md', ...markdownFiles(repoRoot, 'docs'), ...markdownFiles(repoRoot, 'plugins')];

describe('links in the documentation', () => {
  it('reads the front page, the guides and the references', () => {
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'docs/guides/getting-started.md', 'docs/reference/endpoints.md', 'plugins/README.md']));
  });

  it.each(documents)('%s: every relative link and anchor resolves', (file) => {
    expect(brokenLinks(repoRoot, file)).toEqual([]);
  });
});

describe('the link check itself', () => {
  it('makes anchors as GitHub does', () => {
    const anchors = headingAnchors([
      '# Mutual TLS (RFC 8705)',
      '### `private_key_jwt`',
      '## Workload identity: tokens from Kubernetes, GitHub Actions and SPIFFE',
      "### Try it against the tests' providers",
      '```sh',
      '# a shell comment, not a heading',
      '```',
      '## Events',
      '## Events',
    ].join('\n'));
    expect([...anchors]).toEqual([
      'mutual-tls-rfc-8705',
      'private_key_jwt',
      'workload-identity-tokens-from-kubernetes-github-actions-and-spiffe',
      'try-it-against-the-tests-providers',
      'events',
      'events-1',
    ]);
  });

  it('finds links in prose only, not in code', () => {
    expect(linkTargets('See [a](b.md#c) and `[x](y)`.\n```md\n[z](w)\n```\n![img](p.png "title")')).toEqual(['b.md#c', 'p.png']);
  });

  it('reports a missing file and a missing heading, and passes good links', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-links-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs/a.md'), '# A\n\n## Good one\n\n[b](../b.md#there) [self](#good-one) [gone](c.md) [wrong](../b.md#nowhere) [web](https://example.com/#x)\n');
      writeFileSync(join(root, 'b.md'), '# B\n\n## There\n');
      expect(brokenLinks(root, 'docs/a.md')).toEqual([
        'docs/a.md: c.md: no file docs/c.md',
        'docs/a.md: ../b.md#nowhere: b.md has no heading #nowhere',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
