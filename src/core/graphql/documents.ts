import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { heldBytes, stringBytes } from '../cache/held-bytes.js';
import { DEFAULT_GRAPHQL_LIMITS, parseDocument } from './limits.js';

// Parsed GraphQL documents by their text, one cache for the service's read key (`read-key.ts`) and
// yoga's parser (`yoga.ts`), so a document is parsed and kept once. Bounded in bytes, not in entries:
// a document of 2,000 tokens keeps a syntax tree and a token list of a few hundred kilobytes, so
// yoga's default (1,024 documents and 1,024 parse errors whatever their size) could hold gigabytes.

/** What the parsed documents may keep, syntax trees and texts. */
const DOCUMENT_CACHE_BYTES = 8 * 1024 * 1024;
/** What the parse errors may keep (an error holds its document's text). */
const PARSE_ERROR_CACHE_BYTES = 1024 * 1024;
/** An error's own objects beside the texts it holds (message, locations, stack). */
const ERROR_BYTES = 2048;

/** The shape yoga's `parserAndValidationCache` takes. */
interface TextCache<T> {
  get(text: string): T | undefined;
  set(text: string, value: T): void;
}

export class DocumentCache {
  private readonly documents: LRUCache<string, DocumentNode>;
  private readonly errors: LRUCache<string, Error>;
  /**
   * Texts the read key found unparsable. Apart from yoga's errors: yoga keeps the error its own parser
   * made, which carries the HTTP status (400) it answers with; an error kept from here would not.
   */
  private readonly unparsable: LRUCache<string, true>;

  constructor(options: { maxBytes?: number; maxErrorBytes?: number } = {}) {
    this.documents = new LRUCache<string, DocumentNode>({
      maxSize: options.maxBytes ?? DOCUMENT_CACHE_BYTES,
      sizeCalculation: (document, text) => stringBytes(text) + heldBytes(document),
    });
    this.errors = new LRUCache<string, Error>({
      maxSize: options.maxErrorBytes ?? PARSE_ERROR_CACHE_BYTES,
      // The error keeps the text (its source) besides the key.
      sizeCalculation: (_error, text) => 2 * stringBytes(text) + ERROR_BYTES,
    });
    this.unparsable = new LRUCache<string, true>({
      maxSize: options.maxErrorBytes ?? PARSE_ERROR_CACHE_BYTES,
      sizeCalculation: (_flag, text) => stringBytes(text) + 64,
    });
  }

  /**
   * The document of `text`, parsed with yoga's token limit (`limits.ts`), or null when it does not
   * parse: the same document yoga's parser gives for that text, kept for both.
   */
  parse(text: string): DocumentNode | null {
    const known = this.documents.get(text);
    if (known) return known;
    if (this.errors.has(text) || this.unparsable.has(text)) return null;
    try {
      const document = parseDocument(text, DEFAULT_GRAPHQL_LIMITS.maxTokens);
      this.documents.set(text, document);
      return document;
    } catch {
      this.unparsable.set(text, true);
      return null;
    }
  }

  /** For yoga's `parserAndValidationCache`: its parser reads and fills the same caches. */
  yogaCaches(): { documentCache: TextCache<DocumentNode>; errorCache: TextCache<unknown> } {
    return {
      documentCache: this.documents,
      errorCache: {
        get: (text) => this.errors.get(text),
        set: (text, error) => {
          if (error instanceof Error) this.errors.set(text, error);
        },
      },
    };
  }

  /** Bytes held by the documents and the errors, as counted against their bounds. */
  get bytes(): { documents: number; errors: number } {
    return {
      documents: this.documents.calculatedSize,
      errors: this.errors.calculatedSize + this.unparsable.calculatedSize,
    };
  }

  get size(): number {
    return this.documents.size;
  }
}
