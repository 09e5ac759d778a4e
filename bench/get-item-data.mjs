// The data of the GET item measurements from outside (get-item-outside.sh, get-item-counted.sh): `make` creates
// products through the API as an administrator, 50 at a time; `export` reads every product back through the list and
// writes them, as a JSON array, for the reference server (reference-server.mjs).
// Usage: node bench/get-item-data.mjs make <base URL> <administrator's token> <count>
//        node bench/get-item-data.mjs export <base URL> <token> <file>

import { writeFileSync } from 'node:fs';

const [command, base, token, argument] = process.argv.slice(2);
const CATEGORIES = ['tea', 'coffee', 'kitchen', 'books'];

async function make(count) {
  const create = async (n) => {
    const body = {
      name: `Product ${n}`,
      category: CATEGORIES[n % 4],
      price: 1 + (n % 97),
      description: `Number ${n}.`,
    };
    const answer = await fetch(`${base}/v1/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (answer.status !== 201) throw new Error(`POST: ${answer.status} ${await answer.text()}`);
  };
  for (let n = 0; n < count; n += 50)
    await Promise.all(Array.from({ length: Math.min(50, count - n) }, (_, i) => create(n + i)));
}

async function exportAll(file) {
  const all = [];
  for (let page = 1; ; page++) {
    const answer = await fetch(`${base}/v1/products?limit=100&page=${page}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (answer.status !== 200) throw new Error(`GET page ${page}: ${answer.status} ${await answer.text()}`);
    const { data } = await answer.json();
    all.push(...data);
    if (data.length < 100) break;
  }
  writeFileSync(file, JSON.stringify(all));
}

if (command === 'make') await make(Number(argument));
else if (command === 'export') await exportAll(argument);
else {
  console.error('usage: node bench/get-item-data.mjs make|export <base URL> <token> <count|file>');
  process.exit(2);
}
