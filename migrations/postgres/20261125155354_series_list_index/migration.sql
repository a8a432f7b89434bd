-- DropIndex
DROP INDEX "Event_postParentId_idx";

-- CreateIndex
CREATE INDEX "Event_postParentId_status_localStart_id_idx" ON "Event"("postParentId", "status", "localStart", "id");
