/** The deployment's page templates: values escaped by default, sections and lists, and every mistake stops start-up naming its line. */
import { describe, expect, it } from 'vitest';
import { compileTemplate, TemplateError } from '../../src/pages/page-template.js';
import { html } from '../../src/pages/html.js';

const names = { values: ['title', 'clientName', 'intro', 'notice', 'numeric'], lists: { scopes: ['name', 'description'] } };
const render = (source: string, values: Record<string, unknown>) => compileTemplate(source, names).render(values as never).value;

describe('page templates', () => {
  it('escapes every value, in {{ }} and in {{{ }}} alike, unless the page built it as HTML', () => {
    const evil = '<script>alert(1)</script>"\'&';
    expect(render('<h1>{{clientName}}</h1>', { clientName: evil })).toBe('<h1>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</h1>');
    expect(render('<p>{{{clientName}}}</p>', { clientName: evil })).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</p>');
    expect(render('<p>{{{intro}}}</p>', { intro: html`<strong>${evil}</strong>` })).toBe('<p><strong>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</strong></p>');
    // Page-built HTML in {{ }} is shown as the page built it, not escaped twice.
    expect(render('<p>{{intro}}</p>', { intro: html`<em>x</em>` })).toBe('<p><em>x</em></p>');
  });

  it('shows a section when its value is set, an inverted one when it is not, and a list once per item', () => {
    const source = '{{#notice}}<p role="alert">{{notice}}</p>{{/notice}}{{^notice}}none{{/notice}}<ul>{{#scopes}}<li>{{description}} ({{name}}) for {{clientName}}</li>{{/scopes}}</ul>';
    expect(render(source, { notice: 'Wrong', scopes: [], clientName: 'App' })).toBe('<p role="alert">Wrong</p><ul></ul>');
    expect(render(source, { notice: undefined, clientName: '<App>', scopes: [{ name: 'openid', description: 'Know <you>' }, { name: 'email', description: 'Mail' }] }))
      .toBe('none<ul><li>Know &lt;you&gt; (openid) for &lt;App&gt;</li><li>Mail (email) for &lt;App&gt;</li></ul>');
    expect(render('{{#numeric}} inputmode="numeric"{{/numeric}}', { numeric: false })).toBe('');
  });

  it('stops at a name the page does not offer, with the nearest one', () => {
    expect(() => compileTemplate('<p>\n{{clientNme}}</p>', names)).toThrow(new TemplateError('line 2: unknown placeholder "clientNme" (did you mean "clientName"?) (this page offers: title, clientName, intro, notice, numeric, scopes)'));
    // A list item's fields are in reach only inside the list.
    expect(() => compileTemplate('{{description}}', names)).toThrow(/line 1: unknown placeholder "description"/);
  });

  it('stops at an unclosed or crossed section and at a stray {{', () => {
    expect(() => compileTemplate('{{#notice}}\n<p>', names)).toThrow(new TemplateError('line 1: {{#notice}} is never closed'));
    expect(() => compileTemplate('{{#notice}}{{#scopes}}{{/notice}}{{/scopes}}', names)).toThrow(new TemplateError('line 1: {{/notice}} closes {{#scopes}} of line 1'));
    expect(() => compileTemplate('<p>\n\n{{ title </p>', names)).toThrow(/^line 3: "\{\{" that is no placeholder/);
  });
});
