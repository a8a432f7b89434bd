-- The trigram index of the event texts `search` reads (title, excerpt, description): an FTS5 table
-- over Event's own rows (external content: the index only, the texts stay in Event), kept by the
-- triggers below. A `LIKE` on its columns finds its candidates through the index, and SQLite then
-- tests the `LIKE` itself on each, so the answer is exactly the plain `LIKE`'s. The schema engine
-- leaves these tables alone (`schemaFilter`, src/db/schema-engine.ts); `src/services/text-search.ts`
-- asks them for the events of a search.
CREATE VIRTUAL TABLE "EventSearch" USING fts5(
    title, excerpt, description,
    content = 'Event', content_rowid = 'id', tokenize = 'trigram'
);

INSERT INTO "EventSearch" ("EventSearch") VALUES ('rebuild');

CREATE TRIGGER "Event_search_insert" AFTER INSERT ON "Event" BEGIN
    INSERT INTO "EventSearch" (rowid, title, excerpt, description)
    VALUES (new.id, new.title, new.excerpt, new.description);
END;

-- An external-content index forgets a row through the values it indexed, given back as they were.
CREATE TRIGGER "Event_search_delete" AFTER DELETE ON "Event" BEGIN
    INSERT INTO "EventSearch" ("EventSearch", rowid, title, excerpt, description)
    VALUES ('delete', old.id, old.title, old.excerpt, old.description);
END;

CREATE TRIGGER "Event_search_update" AFTER UPDATE OF id, title, excerpt, description ON "Event" BEGIN
    INSERT INTO "EventSearch" ("EventSearch", rowid, title, excerpt, description)
    VALUES ('delete', old.id, old.title, old.excerpt, old.description);
    INSERT INTO "EventSearch" (rowid, title, excerpt, description)
    VALUES (new.id, new.title, new.excerpt, new.description);
END;
