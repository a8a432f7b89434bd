-- The exact count of the listed events (not hidden from listings, not a series' excluded first event)
-- by status and by the days of their local start and end: a list's total whose conditions are whole
-- days and statuses (the default window, say) is a sum over a few hundred of these rows instead of a
-- count of every matching index entry (`src/services/list-counts.ts`). The triggers below keep it
-- exact whatever writes the events (Prisma, raw SQL, imports), so no writer knows of it.
--
-- Concurrent writers must neither wait for nor deadlock on one another over a bucket, so the table is
-- a log of deltas: a statement's trigger only inserts (one row per bucket it changed, netted over
-- the statement's rows), a total is the sum of a bucket's rows, and `compactListCounts`
-- (`src/db/list-counts.ts`) folds each bucket's rows into one from time to time. The schema
-- engine leaves the table and its function alone (`schemaFilter`, src/db/schema-engine.ts).
CREATE TABLE "EventListCount" (
    "status" TEXT NOT NULL,
    "startDay" TEXT NOT NULL,
    "endDay" TEXT NOT NULL,
    "count" INTEGER NOT NULL
);

CREATE INDEX "EventListCount_bucket_idx" ON "EventListCount" ("status", "startDay", "endDay") INCLUDE ("count");

INSERT INTO "EventListCount" ("status", "startDay", "endDay", "count")
SELECT "status", left("localStart", 10), left("localEnd", 10), count(*)::int
FROM "Event"
WHERE NOT "hideFromListings" AND NOT "startExcluded"
GROUP BY 1, 2, 3;

-- Statement triggers with transition tables: a bulk write (createMany, an import's batch, a series
-- moved at once) adds one delta per bucket, not one per event; an update leaving every event in its
-- bucket (a text edit) adds none.
CREATE FUNCTION "event_list_count_delta"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO "EventListCount" ("status", "startDay", "endDay", "count")
        SELECT "status", left("localStart", 10), left("localEnd", 10), count(*)::int
        FROM "event_list_count_new"
        WHERE NOT "hideFromListings" AND NOT "startExcluded"
        GROUP BY 1, 2, 3;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO "EventListCount" ("status", "startDay", "endDay", "count")
        SELECT "status", left("localStart", 10), left("localEnd", 10), -count(*)::int
        FROM "event_list_count_old"
        WHERE NOT "hideFromListings" AND NOT "startExcluded"
        GROUP BY 1, 2, 3;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO "EventListCount" ("status", "startDay", "endDay", "count")
        SELECT "status", "startDay", "endDay", sum("delta")::int
        FROM (
            SELECT "status", left("localStart", 10) AS "startDay", left("localEnd", 10) AS "endDay", -1 AS "delta"
            FROM "event_list_count_old"
            WHERE NOT "hideFromListings" AND NOT "startExcluded"
            UNION ALL
            SELECT "status", left("localStart", 10), left("localEnd", 10), 1
            FROM "event_list_count_new"
            WHERE NOT "hideFromListings" AND NOT "startExcluded"
        ) AS "moved"
        GROUP BY 1, 2, 3
        HAVING sum("delta") <> 0;
    ELSE -- TRUNCATE
        DELETE FROM "EventListCount";
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "Event_list_count_insert" AFTER INSERT ON "Event"
    REFERENCING NEW TABLE AS "event_list_count_new"
    FOR EACH STATEMENT EXECUTE FUNCTION "event_list_count_delta"();

CREATE TRIGGER "Event_list_count_delete" AFTER DELETE ON "Event"
    REFERENCING OLD TABLE AS "event_list_count_old"
    FOR EACH STATEMENT EXECUTE FUNCTION "event_list_count_delta"();

CREATE TRIGGER "Event_list_count_update" AFTER UPDATE ON "Event"
    REFERENCING OLD TABLE AS "event_list_count_old" NEW TABLE AS "event_list_count_new"
    FOR EACH STATEMENT EXECUTE FUNCTION "event_list_count_delta"();

CREATE TRIGGER "Event_list_count_truncate" AFTER TRUNCATE ON "Event"
    FOR EACH STATEMENT EXECUTE FUNCTION "event_list_count_delta"();
