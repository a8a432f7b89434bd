import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed client documents for the example operations, from the committed schema (no server needed).
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['examples/operations/**/*.graphql'],
  generates: {
    'examples/generated/': {
      preset: 'client',
      // ESM with NodeNext resolution: relative imports need their .js extension.
      presetConfig: { fragmentMasking: false },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { DateTime: 'string', JSON: 'unknown' } },
    },
  },
  ignoreNoDocuments: false,
  emitLegacyCommonJSImports: false,
};

export default config;
