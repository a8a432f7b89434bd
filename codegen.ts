import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed client documents for the example operations, from the committed schema (no server needed).
const config: CodegenConfig = {
  schema: 'schema.graphql',
  generates: {
    // Documents per output: an output's own `documents` add to a top-level list, and the calendar's
    // manifest must hold the calendar's documents alone (the server runs them by id in any mode).
    'examples/generated/': {
      documents: ['examples/operations/**/*.graphql'],
      preset: 'client',
      // ESM with NodeNext resolution: relative imports need their .js extension.
      // persistedDocuments: also persisted-documents.json, the manifest of trusted documents (id →
      // text, the id `sha256:<hex>` of the text as printed there) that CALENDAR_TRUSTED_DOCUMENTS
      // loads; each generated document carries its id in `__meta__.hash`.
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { DateTime: 'string', JSON: 'unknown' } },
    },
    // The embeddable calendar's documents again (web/calendar/), as strings carrying the same ids: its
    // bundle ships neither graphql-js nor syntax trees, only each document's id and text.
    'examples/generated/calendar-view/': {
      documents: ['examples/operations/calendar-view.graphql'],
      preset: 'client',
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
      config: {
        documentMode: 'string',
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
  },
  ignoreNoDocuments: false,
  emitLegacyCommonJSImports: false,
};

export default config;
