-- CreateTable
CREATE TABLE "ImportRecord" (
    "id" SERIAL NOT NULL,
    "source" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sourceKey" TEXT NOT NULL,
    "localId" INTEGER NOT NULL,
    "sourceHash" TEXT NOT NULL,
    "sourceData" TEXT NOT NULL DEFAULT '',
    "sourceVersion" TEXT NOT NULL DEFAULT '',
    "localHash" TEXT NOT NULL,
    "importedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportRun" (
    "id" SERIAL NOT NULL,
    "source" TEXT NOT NULL,
    "sourceId" INTEGER,
    "options" TEXT NOT NULL DEFAULT '{}',
    "state" TEXT NOT NULL DEFAULT 'running',
    "checkpoint" TEXT NOT NULL DEFAULT '',
    "summary" TEXT NOT NULL DEFAULT '{}',
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "ImportRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportSource" (
    "id" SERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "options" TEXT NOT NULL DEFAULT '{}',
    "everySeconds" INTEGER NOT NULL,
    "nextRunAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "etag" TEXT,
    "lastModified" TEXT,
    "claimedBy" TEXT,
    "claimedUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportSource_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ImportRecord_kind_localId_idx" ON "ImportRecord"("kind", "localId");

-- CreateIndex
CREATE UNIQUE INDEX "ImportRecord_source_kind_sourceKey_key" ON "ImportRecord"("source", "kind", "sourceKey");

-- CreateIndex
CREATE INDEX "ImportRun_source_id_idx" ON "ImportRun"("source", "id");

-- CreateIndex
CREATE INDEX "ImportRun_sourceId_id_idx" ON "ImportRun"("sourceId", "id");

-- CreateIndex
CREATE INDEX "ImportSource_nextRunAt_idx" ON "ImportSource"("nextRunAt");

-- CreateIndex
CREATE UNIQUE INDEX "ImportSource_type_location_key" ON "ImportSource"("type", "location");

-- AddForeignKey
ALTER TABLE "ImportRun" ADD CONSTRAINT "ImportRun_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "ImportSource"("id") ON DELETE SET NULL ON UPDATE CASCADE;
