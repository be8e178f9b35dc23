// yamldiff: an object's YAML and the unified diff of two, written as
// history --diff writes them (sigs.k8s.io/yaml, which is go-yaml v2, and
// go-difflib with 3 lines of context), so that the page shows what the
// terminal shows. Differences: the diff is of the longest common
// subsequence of lines (difflib's matcher can pair repeated lines
// otherwise) and double-quoted strings are not folded.
'use strict';
const yamldiff = (() => {
  const WIDTH = 80; // go-yaml's best width: longer plain strings fold at a space
  const isLetter = (c) => /\p{L}/u.test(c);
  const isDigit = (c) => c >= '0' && c <= '9';

  // keyOrder is go-yaml v2's order of map keys: letters before other
  // characters, runs of digits by their value.
  function keyOrder(a, b) {
    const ar = [...a], br = [...b];
    for (let i = 0; i < ar.length && i < br.length; i++) {
      if (ar[i] === br[i]) continue;
      const al = isLetter(ar[i]), bl = isLetter(br[i]);
      if (al && bl) return ar[i] < br[i] ? -1 : 1;
      if (al || bl) return bl ? -1 : 1;
      let an = 0, bn = 0, ai, bi;
      if (ar[i] === '0' || br[i] === '0') {
        for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) if (ar[j] !== '0') { an = 1; bn = 1; break; }
      }
      for (ai = i; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10 + (ar[ai].charCodeAt(0) - 48);
      for (bi = i; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10 + (br[bi].charCodeAt(0) - 48);
      if (an !== bn) return an < bn ? -1 : 1;
      if (ai !== bi) return ai < bi ? -1 : 1;
      return ar[i] < br[i] ? -1 : 1;
    }
    return ar.length - br.length;
  }

  // A string that would read back as another type is double-quoted.
  const RESERVED = new Set(['', '~', 'null', 'Null', 'NULL', 'y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO',
    'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF',
    '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF', '<<']);
  const NUMBER = /^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$|^[-+]?0b[01_]+$|^[-+]?0x[0-9a-fA-F_]+$|^[-+]?0o?[0-7_]+$|^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/;
  const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]*)?(Z|[-+][0-9]{1,2}(:[0-9]{2})?)?)?$/;
  const SPECIAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufeff]/;

  // styleOf is how go-yaml writes a one-line string: plain, single- or
  // double-quoted.
  function styleOf(s) {
    if (RESERVED.has(s) || NUMBER.test(s) || TIMESTAMP.test(s) || SPECIAL.test(s) || s.includes('\t')) return 'double';
    if (/^[\s]|[\s]$/.test(s)) return 'single';
    if (/^[#,\[\]{}&*!|>'"%@`]/.test(s) || /^[-?:](\s|$)/.test(s) || /^(---|\.\.\.)/.test(s)) return 'single';
    if (/:(\s|$)/.test(s) || /\s#/.test(s)) return 'single';
    return 'plain';
  }

  // fold breaks a plain or single-quoted string at spaces past WIDTH,
  // the line so far being prefix; later lines are indented by indent.
  function fold(prefix, text, indent, lines) {
    let line = prefix;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === ' ' && line.length > WIDTH && text[i - 1] !== ' ' && text[i + 1] !== ' ' && i > 0 && i < text.length - 1) {
        lines.push(line);
        line = ' '.repeat(indent);
        continue;
      }
      line += c;
    }
    lines.push(line);
  }

  // scalar adds a scalar written after prefix ("key:" or "-").
  function scalar(prefix, v, indent, lines) {
    if (v === null) return lines.push(prefix + ' null');
    if (typeof v === 'boolean' || typeof v === 'number') return lines.push(prefix + ' ' + String(v));
    if (Array.isArray(v)) return lines.push(prefix + ' []');
    if (typeof v === 'object') return lines.push(prefix + ' {}');
    if (v.includes('\n') && !SPECIAL.test(v) && !/ \n| $/.test(v)) return literal(prefix, v, indent, lines);
    switch (v.includes('\n') ? 'double' : styleOf(v)) {
      case 'plain': return fold(prefix + ' ', v, indent, lines);
      case 'single': return fold(prefix + " '", v.replace(/'/g, "''") + "'", indent, lines);
      default: return lines.push(prefix + ' ' + JSON.stringify(v));
    }
  }

  // literal adds a multi-line string as a block: |, |- or |+.
  function literal(prefix, v, indent, lines) {
    const trailing = v.match(/\n*$/)[0].length;
    const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
    lines.push(prefix + ' |' + (v[0] === ' ' || v[0] === '\n' ? '2' : '') + chomp);
    const body = trailing ? v.slice(0, v.length - (chomp === '+' ? 1 : trailing)) : v;
    for (const l of body.split('\n')) lines.push(l ? ' '.repeat(indent) + l : '');
  }

  const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
  const isList = (v) => Array.isArray(v) && v.length > 0;
  const key = (k) => (styleOf(k) === 'plain' ? k : styleOf(k) === 'single' ? `'${k.replace(/'/g, "''")}'` : JSON.stringify(k));

  // block adds a map's or a list's entries at indent.
  function block(v, indent, lines) {
    const pad = ' '.repeat(indent);
    if (isList(v)) {
      for (const item of v) entry(pad + '-', item, indent, lines, true);
      return;
    }
    for (const k of Object.keys(v).sort(keyOrder)) entry(pad + key(k) + ':', v[k], indent, lines, false);
  }

  // entry adds one entry: a nested map or list under it (a list in a map
  // at the map's indent, as go-yaml does; a map in a list starting on the
  // "- " line), else a scalar after it.
  function entry(prefix, v, indent, lines, inList) {
    if (!isMap(v) && !isList(v)) return scalar(prefix, v, indent + 2, lines);
    if (inList) {
      const sub = [];
      block(v, indent + 2, sub);
      sub[0] = prefix + ' ' + sub[0].slice(indent + 2);
      lines.push(...sub);
      return;
    }
    lines.push(prefix);
    block(v, isList(v) ? indent : indent + 2, lines);
  }

  function toYAML(doc) {
    if (!isMap(doc) && !isList(doc)) {
      const lines = [];
      scalar('', doc, 0, lines);
      return lines.join('\n').slice(1) + '\n';
    }
    const lines = [];
    block(doc, 0, lines);
    return lines.join('\n') + '\n';
  }

  // ---- Diffs ---------------------------------------------------------
  // matches are the pairs of equal lines of a longest common subsequence
  // of a and b (common ends trimmed first; a middle too large to compare
  // is all changed), as [i, j] in order.
  function matches(a, b) {
    let lo = 0, ha = a.length, hb = b.length;
    while (lo < ha && lo < hb && a[lo] === b[lo]) lo++;
    while (ha > lo && hb > lo && a[ha - 1] === b[hb - 1]) { ha--; hb--; }
    const out = [];
    for (let i = 0; i < lo; i++) out.push([i, i]);
    const n = ha - lo, m = hb - lo;
    if (n > 0 && m > 0 && n * m <= 4e6) {
      const len = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
      for (let i = n - 1; i >= 0; i--) {
        for (let j = m - 1; j >= 0; j--) {
          len[i][j] = a[lo + i] === b[lo + j] ? len[i + 1][j + 1] + 1 : Math.max(len[i + 1][j], len[i][j + 1]);
        }
      }
      for (let i = 0, j = 0; i < n && j < m;) {
        if (a[lo + i] === b[lo + j]) { out.push([lo + i, lo + j]); i++; j++; } else if (len[i + 1][j] >= len[i][j + 1]) i++; else j++;
      }
    }
    for (let k = 0; k < a.length - ha; k++) out.push([ha + k, hb + k]);
    return out;
  }

  // opcodes are difflib's: ['e'|'r'|'d'|'i', i1, i2, j1, j2].
  function opcodes(a, b) {
    const codes = [];
    let i = 0, j = 0;
    const ms = matches(a, b);
    ms.push([a.length, b.length]);
    for (let k = 0; k < ms.length;) {
      const [mi, mj] = ms[k];
      const tag = i < mi && j < mj ? 'r' : i < mi ? 'd' : j < mj ? 'i' : '';
      if (tag) codes.push([tag, i, mi, j, mj]);
      let run = 0;
      while (k + run < ms.length - 1 && ms[k + run][0] === mi + run && ms[k + run][1] === mj + run) run++;
      if (run) codes.push(['e', mi, mi + run, mj, mj + run]);
      i = mi + run; j = mj + run;
      k += Math.max(run, 1);
    }
    return codes;
  }

  // groups are difflib's GetGroupedOpCodes(n).
  function groups(codes, n) {
    if (!codes.length) codes = [['e', 0, 1, 0, 1]];
    const c0 = codes[0], cl = codes[codes.length - 1];
    if (c0[0] === 'e') codes[0] = ['e', Math.max(c0[1], c0[2] - n), c0[2], Math.max(c0[3], c0[4] - n), c0[4]];
    if (cl[0] === 'e') codes[codes.length - 1] = ['e', cl[1], Math.min(cl[2], cl[1] + n), cl[3], Math.min(cl[4], cl[3] + n)];
    const out = [];
    let group = [];
    for (const c of codes) {
      let [tag, i1, i2, j1, j2] = c;
      if (tag === 'e' && i2 - i1 > 2 * n) {
        group.push(['e', i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)]);
        out.push(group);
        group = [];
        i1 = Math.max(i1, i2 - n); j1 = Math.max(j1, j2 - n);
      }
      group.push([tag, i1, i2, j1, j2]);
    }
    if (group.length && !(group.length === 1 && group[0][0] === 'e')) out.push(group);
    return out;
  }

  const range = (start, stop) => {
    const len = stop - start;
    if (len === 1) return String(start + 1);
    return len === 0 ? `${start},0` : `${start + 1},${len}`;
  };

  // unifiedDiff is go-difflib's GetUnifiedDiffString with 3 lines of
  // context: "" when a and b are equal.
  function unifiedDiff(a, b, from, to) {
    const al = a.split('\n'), bl = b.split('\n'); // difflib.SplitLines: the same lines
    const out = [];
    for (const g of groups(opcodes(al, bl), 3)) {
      if (!out.length) out.push(`--- ${from}`, `+++ ${to}`);
      const first = g[0], last = g[g.length - 1];
      out.push(`@@ -${range(first[1], last[2])} +${range(first[3], last[4])} @@`);
      for (const [tag, i1, i2, j1, j2] of g) {
        if (tag === 'e') { for (const l of al.slice(i1, i2)) out.push(' ' + l); continue; }
        if (tag !== 'i') for (const l of al.slice(i1, i2)) out.push('-' + l);
        if (tag !== 'd') for (const l of bl.slice(j1, j2)) out.push('+' + l);
      }
    }
    return out.length ? out.join('\n') + '\n' : '';
  }

  return { toYAML, unifiedDiff, keyOrder };
})();
