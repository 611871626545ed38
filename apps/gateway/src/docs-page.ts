const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => escapes[character] as string);
}

interface Operation {
  summary?: string;
  tags?: string[];
  requestBody?: { content: { 'application/json': { schema: unknown } } };
}

/**
 * Renders an OpenAPI document as a self-contained HTML page (no scripts, no CDN) that links to
 * the document at `documentPath`: a path from the root, so that the link holds whether the page
 * was asked for as `/docs` or `/docs/`.
 */
export function renderDocsPage(document: Record<string, unknown>, documentPath: string): string {
  const info = document.info as { title: string; version: string };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const rows: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const body = operation.requestBody?.content['application/json'].schema;
      rows.push(
        `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td>` +
          `<td>${escapeHtml(operation.tags?.join(', ') ?? '')}</td><td>${escapeHtml(operation.summary ?? '')}` +
          (body === undefined
            ? ''
            : `<details><summary>request body</summary><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre></details>`) +
          '</td></tr>',
      );
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.title)} API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}pre{background:#f6f6f6;padding:.5rem}</style>
</head><body><h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>The machine-readable document is at <a href="${escapeHtml(documentPath)}">${escapeHtml(documentPath)}</a> (OpenAPI 3.1).</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Surface</th><th>What it does</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></body></html>`;
}
