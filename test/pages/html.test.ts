import { describe, expect, it } from 'vitest';
import { escapeHtml, html, SafeHtml } from '../../src/pages/html.js';

describe('html templates', () => {
  it('escape every interpolated string, in text and in attributes', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    const name = '"><script>alert(1)</script>';
    expect(html`<input value="${name}"><p>${name}</p>`.value).toBe(
      '<input value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"><p>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
  });

  it('keep nested templates and lists as markup, drop empty values', () => {
    const items = ['<a>', 'b'].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}</ul>${undefined}${false}${null}${0}`.value).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>0');
    expect(html`${new SafeHtml('<b>')}`.value).toBe('<b>');
  });
});
