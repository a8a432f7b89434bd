import { describe, expect, it } from 'vitest';
import { texturize } from '../../../src/core/rules/texts/texturize.js';

// Examples from WordPress's own `wptexturize` tests (tests/phpunit/tests/formatting/wpTexturize.php)
// and the issue's, each with what WordPress prints.
describe('texturize (wptexturize)', () => {
  it.each([
    [`Bob's "Quoted" Party`, 'Bob&#8217;s &#8220;Quoted&#8221; Party'],
    ['"Quoted String"', '&#8220;Quoted String&#8221;'],
    [`'single quotes'`, '&#8216;single quotes&#8217;'],
    [`It's a test`, 'It&#8217;s a test'],
    [`in '99 and '07s`, 'in &#8217;99 and &#8217;07s'],
    ['a -- b', 'a &#8212; b'],
    ['a--b', 'a&#8211;b'],
    ['a---b', 'a&#8212;b'],
    ['a - b', 'a &#8211; b'],
    ['Wait...', 'Wait&#8230;'],
    ['9x9 grid', '9&#215;9 grid'],
    [`a 6' 2" man`, 'a 6&#8242; 2&#8243; man'],
    ['Ben & Jerry', 'Ben &#038; Jerry'],
    ['Ben &amp; Jerry &#8217;s', 'Ben &amp; Jerry &#8217;s'],
    ['``double``', '&#8220;double&#8220;'],
    ['(tm) and Foo (tm)', '(tm) and Foo &#8482;'],
    ['http://xn--bcher-kva.example/', 'http://xn--bcher-kva.example/'],
  ])('%s', (input, output) => {
    expect(texturize(input)).toBe(output);
  });

  it('leaves HTML tags and their attributes alone', () => {
    expect(texturize('Here is "<a href="http://example.com/a--b">a link</a>"')).toBe(
      'Here is &#8220;<a href="http://example.com/a--b">a link</a>&#8221;',
    );
  });

  it('leaves <code>, <pre> and <kbd> content alone, and resumes after them', () => {
    expect(texturize(`<p>"a" <code>'raw' -- x</code> "b"</p>`)).toBe(
      `<p>&#8220;a&#8221; <code>'raw' -- x</code> &#8220;b&#8221;</p>`,
    );
    expect(texturize(`<pre>it's</pre>it's`)).toBe(`<pre>it's</pre>it&#8217;s`);
  });
});
