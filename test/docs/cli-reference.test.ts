/**
 * docs/cli-reference.md is written from the commands' own help (`npm run cli-reference`): a
 * command or option added or reworded without running it fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandHelp, commands } from '../../src/cli/commands.js';
import { cliReference } from '../../src/cli/reference.js';

const page = readFileSync(new URL('../../docs/cli-reference.md', import.meta.url), 'utf8');

describe('the CLI reference', () => {
  it('is fresh (run `npm run cli-reference`)', () => {
    expect(page).toBe(cliReference());
  });

  it('has a section per command with its --help text', () => {
    for (const command of commands) {
      expect(page).toContain(`## svc ${command.name}\n\n\`\`\`\n${commandHelp(command).trimEnd()}\n\`\`\``);
    }
  });
});
